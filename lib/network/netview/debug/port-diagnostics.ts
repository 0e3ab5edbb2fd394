/**
 * Port diagnostics (`GET /api/v1/debug/port-diagnostics`): every logical switch port checked against
 * its southbound binding, the chassis it is bound to and, when the chassis switches are monitored,
 * the live interfaces that claim it. Each port gets the issues found and a severity (the worst of
 * them, `healthy` with none); the summary counts every port, whatever the filter and limit (decision
 * 327). Pure over the cross-reference index, the chassis inventory and the switches' interface rows.
 */
import type { Row } from "../../ovsdb/datum.ts";
import type { Inventory } from "../views/correlated.ts";
import type { NetworkIndex } from "../views/network-index.ts";
import { byName, optBool, str, strMap } from "../views/row-values.ts";

export const severities = ["healthy", "warning", "error"] as const;
export type Severity = (typeof severities)[number];

export const issueCodes = [
  "no_binding",
  "unbound",
  "down",
  "disabled",
  "chassis_down",
  "chassis_lagging",
  "chassis_mismatch",
  "iface_id_mismatch",
  "nb_up_mismatch",
  "router_port_missing",
] as const;
type IssueCode = (typeof issueCodes)[number];

interface PortIssue {
  code: IssueCode;
  severity: Exclude<Severity, "healthy">;
  message: string;
}

/** A live interface carrying `external_ids:iface-id` (the logical port ovn-controller binds it to). */
interface ClaimingInterface {
  chassis: string;
  uuid: string;
  name: string;
  link_state: string | null;
  ofport: number | null;
}

export interface PortDiagnosis {
  uuid: string;
  name: string;
  type: string;
  switch: { uuid: string; name: string } | null;
  enabled: boolean | null;
  severity: Severity;
  issues: PortIssue[];
  binding: {
    uuid: string;
    chassis: string | null;
    up: boolean | null;
    requested_chassis: string[];
  } | null;
  /** The live interfaces claiming the port; null when no chassis switch is monitored. */
  interfaces: ClaimingInterface[] | null;
}

/** An interface whose iface-id names no logical port (found only with monitored switches). */
interface StrayInterface extends ClaimingInterface {
  iface_id: string;
}

/** The Interface rows of each monitored, connected chassis switch, by system-id. */
export type SwitchInterfaces = ReadonlyMap<string, readonly Row[]>;

interface DiagnosticsSummary {
  total: number;
  healthy: number;
  warning: number;
  error: number;
  by_issue: Partial<Record<IssueCode, number>>;
}

export interface PortDiagnostics {
  summary: DiagnosticsSummary;
  returned: number;
  truncated: boolean;
  ports: PortDiagnosis[];
  stray_interfaces: StrayInterface[] | null;
}

/** Port types bound to a chassis by ovn-controller (the others are patch, localnet, ... by design). */
const chassisBoundTypes = new Set(["", "virtual", "external"]);
const rank: Record<Severity, number> = { healthy: 0, warning: 1, error: 2 };

function claims(switches: SwitchInterfaces | undefined) {
  if (switches === undefined) return undefined;
  const out = new Map<string, StrayInterface[]>();
  for (const [chassis, interfaces] of switches) {
    for (const i of interfaces) {
      const ifaceId = strMap(i.external_ids)["iface-id"];
      if (ifaceId === undefined) continue;
      const claim = {
        chassis,
        uuid: i._uuid,
        name: str(i.name),
        link_state: typeof i.link_state === "string" ? i.link_state : null,
        ofport: typeof i.ofport === "number" ? i.ofport : null,
        iface_id: ifaceId,
      };
      out.set(ifaceId, [...(out.get(ifaceId) ?? []), claim]);
    }
  }
  return out;
}

/** What the checks of one port read, and where they write. */
interface PortFacts {
  ix: NetworkIndex;
  inventory: Inventory;
  lsp: Row;
  pb: Row;
  chassisRow: Row | undefined;
  /** The bound chassis's system-id. */
  chassis: string | null;
  /** options:requested-chassis, system-ids or hostnames. */
  requested: string[];
  interfaces: ClaimingInterface[] | null;
  add: (code: IssueCode, severity: PortIssue["severity"], message: string) => void;
}

/** requested-chassis names a chassis by its system-id or its hostname. */
const isRequested = (f: PortFacts, systemId: string) =>
  f.requested.includes(systemId) || f.requested.includes(str(f.ix.chassisByName.get(systemId)?.hostname));

function routerPortIssues(f: PortFacts): void {
  const rp = strMap(f.lsp.options)["router-port"];
  if (rp === undefined || !f.ix.lrpByName.has(rp))
    f.add(
      "router_port_missing",
      "error",
      rp === undefined
        ? "a router-type port without options:router-port"
        : `options:router-port names ${JSON.stringify(rp)}, which is no logical router port`,
    );
}

/** A port no chassis has bound: why not, as far as the live interfaces tell. */
function unboundIssues(f: PortFacts): void {
  const where = (f.interfaces ?? []).map((i) => `${i.name} on ${i.chassis}`);
  f.add(
    "unbound",
    "error",
    where.length > 0
      ? `bound to no chassis, although interface ${where.join(", ")} carries its iface-id`
      : "bound to no chassis: no ovn-controller has claimed it (no interface with this iface-id, or not yet)",
  );
  // The interface is there, but on a chassis the port may not be bound to.
  const hosts = [...new Set((f.interfaces ?? []).map((i) => i.chassis))];
  if (f.requested.length > 0 && hosts.length > 0 && !hosts.some((h) => isRequested(f, h)))
    f.add(
      "chassis_mismatch",
      "error",
      `its interface is on ${hosts.join(", ")} but options:requested-chassis asks for ${f.requested.join(", ")}`,
    );
}

/** A bound port: its chassis's liveness, its own state, and where its interfaces are. */
function boundIssues(f: PortFacts, chassisRow: Row): void {
  const { chassis } = f;
  const state = f.inventory.get(str(chassisRow.name));
  const status = state?.sync_status ?? "no_private_row";
  if (status === "stale" || status === "no_private_row")
    f.add(
      "chassis_down",
      "error",
      status === "stale"
        ? `bound to chassis ${chassis}, which has stopped following the northbound (behind nb_cfg ${state?.global_nb_cfg} since ${Math.round((state?.lag_ms ?? 0) / 1000)} s)`
        : `bound to chassis ${chassis}, which has no Chassis_Private row (its ovn-controller never reported)`,
    );
  else if (status === "lagging")
    f.add(
      "chassis_lagging",
      "warning",
      `bound to chassis ${chassis}, which is behind nb_cfg ${state?.global_nb_cfg} (at ${state?.nb_cfg})`,
    );
  if (f.pb.up === false)
    f.add("down", "error", `bound to chassis ${chassis} but not up: its flows are not installed`);
  if (f.requested.length > 0 && !isRequested(f, str(chassisRow.name)))
    f.add(
      "chassis_mismatch",
      "error",
      `bound to chassis ${chassis} but options:requested-chassis asks for ${f.requested.join(", ")}`,
    );
  const elsewhere = (f.interfaces ?? []).filter((i) => i.chassis !== chassis);
  if (elsewhere.length > 0)
    f.add(
      "iface_id_mismatch",
      "warning",
      `interface ${elsewhere.map((i) => `${i.name} on ${i.chassis}`).join(", ")} also carries its iface-id, but the port is bound to ${chassis}`,
    );
}

/** A port ovn-controller binds: bound or not, and whether the NB has caught up with the SB. */
function chassisPortIssues(f: PortFacts): void {
  if (f.chassisRow === undefined) unboundIssues(f);
  else boundIssues(f, f.chassisRow);
  const nbUp = optBool(f.lsp.up);
  const sbUp = optBool(f.pb.up);
  if (nbUp !== null && sbUp !== null && nbUp !== sbUp)
    f.add(
      "nb_up_mismatch",
      "warning",
      `the northbound says up=${nbUp} but the southbound up=${sbUp} (ovn-northd has not caught up)`,
    );
}

function diagnose(
  ix: NetworkIndex,
  inventory: Inventory,
  lsp: Row,
  claimed: ReadonlyMap<string, StrayInterface[]> | undefined,
): PortDiagnosis {
  const name = str(lsp.name);
  const type = str(lsp.type);
  const ls = ix.switchOfPort.get(lsp._uuid);
  const pb = ix.pbByName.get(name);
  const issues: PortIssue[] = [];
  const add = (code: IssueCode, severity: PortIssue["severity"], message: string) =>
    issues.push({ code, severity, message });
  const enabled = optBool(lsp.enabled);
  if (enabled === false) add("disabled", "warning", "the port is administratively disabled (enabled=false)");
  const chassisRow = typeof pb?.chassis === "string" ? ix.chassis.get(pb.chassis) : undefined;
  const chassis = chassisRow === undefined ? null : str(chassisRow.name);
  const requested = (strMap(lsp.options)["requested-chassis"] ?? "")
    .split(",")
    .map((s) => s.trim())
    .filter((s) => s !== "");
  const interfaces =
    claimed === undefined ? null : (claimed.get(name) ?? []).map(({ iface_id: _, ...i }) => i);
  if (pb === undefined) {
    add("no_binding", "error", "the southbound has no Port_Binding for the port (is ovn-northd running?)");
  } else {
    const facts: PortFacts = { ix, inventory, lsp, pb, chassisRow, chassis, requested, interfaces, add };
    if (type === "router") routerPortIssues(facts);
    else if (chassisBoundTypes.has(type)) chassisPortIssues(facts);
  }
  const severity = issues.reduce<Severity>(
    (w, i) => (rank[i.severity] > rank[w] ? i.severity : w),
    "healthy",
  );
  return {
    uuid: lsp._uuid,
    name,
    type,
    switch: ls === undefined ? null : { uuid: ls._uuid, name: str(ls.name) },
    enabled,
    severity,
    issues,
    binding:
      pb === undefined ? null : { uuid: pb._uuid, chassis, up: optBool(pb.up), requested_chassis: requested },
    interfaces,
  };
}

interface DiagnosticsQuery {
  severity?: Severity;
  limit: number;
}

/** Every port diagnosed, worst first then by name; `severity` and `limit` narrow only `ports`. */
export function portDiagnostics(
  ix: NetworkIndex,
  inventory: Inventory,
  query: DiagnosticsQuery,
  switches?: SwitchInterfaces,
): PortDiagnostics {
  const claimed = claims(switches);
  const all = [...ix.lsp.values()].map((p) => diagnose(ix, inventory, p, claimed));
  const summary: DiagnosticsSummary = { total: all.length, healthy: 0, warning: 0, error: 0, by_issue: {} };
  for (const d of all) {
    summary[d.severity]++;
    for (const i of d.issues) summary.by_issue[i.code] = (summary.by_issue[i.code] ?? 0) + 1;
  }
  const matching = all
    .filter((d) => query.severity === undefined || d.severity === query.severity)
    .sort((a, b) => rank[b.severity] - rank[a.severity] || byName(a, b));
  const ports = matching.slice(0, query.limit);
  let stray: StrayInterface[] | null = null;
  if (claimed !== undefined) {
    stray = [];
    for (const [ifaceId, list] of claimed)
      if (!ix.lspByName.has(ifaceId) && !ix.pbByName.has(ifaceId))
        for (const i of list) stray.push({ ...i, iface_id: ifaceId });
    stray.sort((a, b) => (a.chassis + a.name < b.chassis + b.name ? -1 : 1));
  }
  return {
    summary,
    returned: ports.length,
    truncated: matching.length > ports.length,
    ports,
    stray_interfaces: stray,
  };
}

/** One port by its NB uuid or the uuid of its SB binding; undefined when neither. */
export function portDiagnosis(
  ix: NetworkIndex,
  inventory: Inventory,
  uuid: string,
  switches?: SwitchInterfaces,
): PortDiagnosis | undefined {
  const lsp = ix.lsp.get(uuid) ?? ix.lspByName.get(str(ix.pb.get(uuid)?.logical_port));
  return lsp === undefined ? undefined : diagnose(ix, inventory, lsp, claims(switches));
}
