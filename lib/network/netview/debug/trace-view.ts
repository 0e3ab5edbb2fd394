/**
 * A trace as the API answers it: the stages walked (datapath, pipeline, table, stage, the flow that
 * matched and its actions), the outcome (where copies of the packet were delivered and where and why
 * the others stopped), the node tree, and ovn-trace's text. Pure over the trace result and the NB
 * rows the drops point at (the ACL behind an ACL stage, by the flow's stage-hint).
 */
import { formatTrace } from "../../ovn-logic/trace-format.ts";
import type { TraceNode, TraceResult } from "../../ovn-logic/trace-tree.ts";
import type { Row } from "../../ovsdb/datum.ts";

export interface TraceStage {
  datapath: string;
  datapath_uuid: string;
  pipeline: string;
  table: number;
  stage: string | null;
  flow_uuid: string | null;
  priority: number | null;
  match: string | null;
  source: string | null;
  actions: string[];
}

export interface AclRef {
  uuid: string;
  direction: string;
  priority: number;
  match: string;
  action: string;
  /** The switch or port group the ACL is attached to. */
  scope: { kind: "logical_switch" | "port_group"; name: string; uuid: string } | null;
}

export interface TraceStop {
  reason: "no_match" | "drop_action" | "reject_action" | "no_forwarding_action" | "loop" | "error";
  detail: string;
  stage: TraceStage | null;
  acl: AclRef | null;
}

interface TraceOutcome {
  verdict: "delivered" | "dropped" | "partially_delivered";
  delivered: { port: string; datapath: string; type: string }[];
  stopped: TraceStop[];
}

/** Finds an NB ACL by the 8 hex digits of a flow's stage-hint. */
type AclLookup = (stageHint: string) => AclRef | null;

const continues = (n: TraceNode) =>
  n.type === "table" ||
  n.type === "pipeline" ||
  n.type === "transformation" ||
  n.type === "output" ||
  n.delivered !== undefined;

function stageOf(node: TraceNode): TraceStage | null {
  const s = node.stage;
  if (s === undefined) return null;
  return {
    datapath: s.datapath,
    datapath_uuid: s.datapathUuid,
    pipeline: s.pipeline,
    table: s.table,
    stage: s.stageName ?? null,
    flow_uuid: s.flow?.uuid ?? null,
    priority: s.flow?.priority ?? null,
    match: s.flow?.match ?? null,
    source: s.flow?.source ?? null,
    actions: node.subs.filter((n) => n.type === "action").map((n) => n.text),
  };
}

function traceStages(result: TraceResult): TraceStage[] {
  const out: TraceStage[] = [];
  const walk = (nodes: readonly TraceNode[]) => {
    for (const n of nodes) {
      const s = n.type === "table" ? stageOf(n) : null;
      if (s !== null) out.push(s);
      walk(n.subs);
    }
  };
  walk(result.root);
  return out;
}

function traceOutcome(result: TraceResult, acl: AclLookup): TraceOutcome {
  const delivered: TraceOutcome["delivered"] = [];
  const stopped: TraceStop[] = [];
  const walk = (nodes: readonly TraceNode[], table: TraceNode | undefined) => {
    for (const n of nodes) {
      if (n.delivered !== undefined) delivered.push(n.delivered);
      if (n.type === "error" && n.text.startsWith("***")) {
        stopped.push({
          reason: "error",
          detail: n.text.replace(/^\*+ /, ""),
          stage: table === undefined ? null : stageOf(table),
          acl: null,
        });
      }
      if (n.type === "output" && n.text.includes("omitting output")) {
        stopped.push({
          reason: "loop",
          detail: "inport == outport and loopback not allowed",
          stage: table === undefined ? null : stageOf(table),
          acl: null,
        });
      }
      if (n.type === "table") {
        const stage = stageOf(n);
        const hint = n.stage?.flow?.stageHint;
        const blame = hint === undefined ? null : acl(hint);
        if (n.stage?.flow === null) {
          stopped.push({ reason: "no_match", detail: "no flow matched (implicit drop)", stage, acl: null });
        } else if (n.subs.some((a) => a.type === "action" && a.text === "drop;")) {
          stopped.push({
            reason: "drop_action",
            detail: "the matching flow drops the packet",
            stage,
            acl: blame,
          });
        } else if (n.subs.some((a) => a.type === "action" && /^reject\b/.test(a.text))) {
          // The packet stops here; what continues is the reply the reject sends back.
          stopped.push({
            reason: "reject_action",
            detail: "the matching flow rejects the packet (a TCP reset or ICMP unreachable goes back)",
            stage,
            acl: blame,
          });
        } else if (!n.subs.some(continues) && !n.subs.some((a) => a.type === "error")) {
          stopped.push({
            reason: "no_forwarding_action",
            detail: "the matching flow's actions end without next or output",
            stage,
            acl: blame,
          });
        }
        walk(n.subs, n);
      } else walk(n.subs, table);
    }
  };
  walk(result.root, undefined);
  const verdict =
    delivered.length === 0 ? "dropped" : stopped.length === 0 ? "delivered" : "partially_delivered";
  return { verdict, delivered, stopped };
}

interface TreeNode {
  type: string;
  text: string;
  children: TreeNode[];
}

function traceTree(nodes: readonly TraceNode[]): TreeNode[] {
  return nodes.map((n) => ({ type: n.type, text: n.text, children: traceTree(n.subs) }));
}

/** The ACLs of the NB by the first 8 hex digits of their UUID, with the switch or group holding each. */
export function aclIndex(nb: { rows(table: string): Row[] }): AclLookup {
  const scope = new Map<string, AclRef["scope"]>();
  for (const [table, kind] of [
    ["Logical_Switch", "logical_switch"],
    ["Port_Group", "port_group"],
  ] as const) {
    for (const row of nb.rows(table)) {
      for (const ref of Array.isArray(row.acls) ? row.acls : [])
        scope.set(String(ref), { kind, name: typeof row.name === "string" ? row.name : "", uuid: row._uuid });
    }
  }
  const byHint = new Map<string, Row>();
  for (const row of nb.rows("ACL")) byHint.set(row._uuid.slice(0, 8), row);
  return (hint) => {
    const row = byHint.get(hint.toLowerCase().padStart(8, "0"));
    return row === undefined ? null : aclRef(row, scope.get(row._uuid) ?? null);
  };
}

/** An NB ACL row as the debug answers name it. */
export function aclRef(row: Row, scope: AclRef["scope"]): AclRef {
  return {
    uuid: row._uuid,
    direction: String(row.direction ?? ""),
    priority: typeof row.priority === "number" ? row.priority : 0,
    match: String(row.match ?? ""),
    action: String(row.action ?? ""),
    scope,
  };
}

export interface TraceView {
  datapath: string;
  inport: string;
  microflow: string;
  flow: string;
  outcome: TraceOutcome;
  stages: TraceStage[];
  tree: TreeNode[];
  text: string;
}

export function traceView(result: TraceResult, microflow: string, acl: AclLookup): TraceView {
  return {
    datapath: result.datapath,
    inport: result.inport,
    microflow,
    flow: result.flow,
    outcome: traceOutcome(result, acl),
    stages: traceStages(result),
    tree: traceTree(result.root),
    text: formatTrace(result, "detailed"),
  };
}
