/**
 * The ACL audit (`GET /api/v1/debug/acl-audit`): ACLs that can never match because ACLs of higher
 * priority already take every packet they would (shadowed), and ACLs of equal priority that share
 * packets but disagree on the verdict, so that which one wins is up to OVN (conflicting). ACLs are
 * compared only within one attachment scope (a switch's own ACLs, or one port group's) and one
 * pipeline stage (direction, apply-after-lb, tier): ACLs of two scopes meet only on the ports they
 * share, which is not the question asked here (decision 328). Matches are compared exactly as sets
 * of packets (lib/network/ovn-logic/match-space.ts); an ACL too large to compare within the budget, or one
 * that does not parse, is listed as unchecked rather than guessed about. Pure over the index.
 */

import { annotate, parseExpr } from "../../ovn-logic/expr.ts";
import { covers, matchSpace, overlaps, type Space, SpaceTooLarge } from "../../ovn-logic/match-space.ts";
import { symtab } from "../../ovn-logic/symbols.ts";
import type { Row } from "../../ovsdb/datum.ts";
import type { NetworkIndex } from "../views/network-index.ts";
import { num, str, strMap, strs } from "../views/row-values.ts";
import { type AclRef, aclRef } from "./trace-view.ts";

/** Decision 328: at most this many findings in one answer; `truncated` says more were found. */
export const aclAuditCap = 500;

interface AclFinding {
  kind: "shadowed" | "conflicting";
  /** The ACL that never matches (shadowed), or one of the pair (conflicting). */
  acl: AclRef;
  /** The higher-priority ACLs that take its packets, or the other ACL of the pair. */
  related: AclRef[];
  detail: string;
}

export interface AclAudit {
  scopes: number;
  acls: number;
  findings: AclFinding[];
  truncated: boolean;
  cap: number;
  /** ACLs left out of the comparison, with why. */
  unchecked: { acl: AclRef; reason: string }[];
}

export interface AclAuditQuery {
  /** Name or uuid of one switch or port group. */
  scope?: string;
  kind?: AclFinding["kind"];
}

type Verdict = "allow" | "deny" | "pass";

function verdictOf(action: string): Verdict {
  if (action === "drop" || action === "reject") return "deny";
  return action === "pass" ? "pass" : "allow";
}

interface Compiled {
  row: Row;
  ref: AclRef;
  priority: number;
  space: Space;
}

/** The ACLs of one scope, split by the pipeline stage they land in. */
function stages(acls: Row[]): Row[][] {
  const out = new Map<string, Row[]>();
  for (const a of acls) {
    const key = [
      str(a.direction),
      strMap(a.options)["apply-after-lb"] === "true" ? "after-lb" : "",
      typeof a.tier === "number" ? a.tier : 0,
    ].join("|");
    out.set(key, [...(out.get(key) ?? []), a]);
  }
  return [...out.values()];
}

function parseContext(ix: NetworkIndex) {
  const addressSets = new Map<string, string[]>();
  for (const r of ix.nb.rows("Address_Set")) addressSets.set(str(r.name), strs(r.addresses));
  // ovn-northd's own sets (`<port group>_ip4`, `_ip6`) live only in the southbound.
  for (const r of ix.sb.rows("Address_Set"))
    if (!addressSets.has(str(r.name))) addressSets.set(str(r.name), strs(r.addresses));
  const portGroups = new Map<string, string[]>();
  for (const g of ix.nb.rows("Port_Group"))
    portGroups.set(
      str(g.name),
      strs(g.ports).map((p) => str(ix.lsp.get(p)?.name)),
    );
  return { symtab, addressSets, portGroups };
}

/** Whether a switch or port group has `scope` as its name or uuid (with ACLs or not). */
export function isAclScope(ix: NetworkIndex, scope: string): boolean {
  const named = (row: Row) => row._uuid === scope || str(row.name) === scope;
  return [...ix.ls.values()].some(named) || ix.nb.rows("Port_Group").some(named);
}

export function aclAudit(ix: NetworkIndex, query: AclAuditQuery = {}): AclAudit {
  const ctx = parseContext(ix);
  const out: AclAudit = {
    scopes: 0,
    acls: 0,
    findings: [],
    truncated: false,
    cap: aclAuditCap,
    unchecked: [],
  };
  const scopes = [
    ...[...ix.ls.values()].map((row) => ({ kind: "logical_switch" as const, row })),
    ...ix.nb.rows("Port_Group").map((row) => ({ kind: "port_group" as const, row })),
  ]
    .filter((s) => strs(s.row.acls).length > 0)
    .filter(
      (s) => query.scope === undefined || s.row._uuid === query.scope || str(s.row.name) === query.scope,
    )
    .sort((a, b) => (str(a.row.name) < str(b.row.name) ? -1 : 1));
  const add = (finding: AclFinding): boolean => {
    if (query.kind !== undefined && finding.kind !== query.kind) return true;
    if (out.findings.length >= aclAuditCap) {
      out.truncated = true;
      return false;
    }
    out.findings.push(finding);
    return true;
  };
  for (const scope of scopes) {
    out.scopes++;
    const ref = { kind: scope.kind, name: str(scope.row.name), uuid: scope.row._uuid };
    const rows = strs(scope.row.acls).flatMap((a) => ix.nb.get("ACL", a) ?? []);
    out.acls += rows.length;
    for (const stage of stages(rows)) {
      const compiled: Compiled[] = [];
      for (const row of stage) {
        const acl = aclRef(row, ref);
        try {
          const space = matchSpace(annotate(parseExpr(str(row.match), ctx), symtab));
          compiled.push({ row, ref: acl, priority: num(row.priority), space });
        } catch (error) {
          out.unchecked.push({
            acl,
            reason:
              error instanceof SpaceTooLarge
                ? `too large to compare (${error.message})`
                : `match does not parse: ${(error as Error).message}`,
          });
        }
      }
      compiled.sort((a, b) => b.priority - a.priority || (a.ref.uuid < b.ref.uuid ? -1 : 1));
      if (!auditStage(compiled, add, out)) return out;
    }
  }
  return out;
}

/** One stage's findings; false once the cap is reached. */
function auditStage(acls: Compiled[], add: (f: AclFinding) => boolean, out: AclAudit): boolean {
  for (const [i, b] of acls.entries()) {
    const higher = acls.slice(0, i).filter((a) => a.priority > b.priority && overlaps(a.space, b.space));
    try {
      const single = higher.find((a) => covers(a.space, b.space));
      const by =
        single !== undefined
          ? [single]
          : covers(
                higher.flatMap((a) => a.space),
                b.space,
              )
            ? higher
            : [];
      if (by.length > 0 && b.space.length > 0) {
        const detail =
          by.length === 1
            ? `every packet it matches is already matched at priority ${by[0]?.priority} by ${JSON.stringify(by[0]?.ref.match)} (${by[0]?.ref.action})`
            : `every packet it matches is already matched by ${by.length} ACLs of higher priority`;
        if (!add({ kind: "shadowed", acl: b.ref, related: by.map((a) => a.ref), detail })) return false;
      }
    } catch (error) {
      if (!(error instanceof SpaceTooLarge)) throw error;
      out.unchecked.push({ acl: b.ref, reason: `shadowing undecided (${error.message})` });
    }
    for (const a of acls.slice(0, i)) {
      if (a.priority !== b.priority) continue;
      if (verdictOf(str(a.row.action)) === verdictOf(str(b.row.action))) continue;
      if (!overlaps(a.space, b.space)) continue;
      const detail = `same priority ${b.priority} and some packets match both, but one says ${str(a.row.action)} and the other ${str(b.row.action)}: which applies is up to OVN`;
      if (!add({ kind: "conflicting", acl: a.ref, related: [b.ref], detail })) return false;
    }
  }
  return true;
}
