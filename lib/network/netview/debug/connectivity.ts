/**
 * Connectivity between two ports (`GET /api/v1/debug/connectivity`): the forward packet traced as a
 * new connection and the reply traced as part of it (conntrack `est,rpl`), each said to reach the
 * other port or not and, when not, where and why it stops (the ACL that drops it, no route, port
 * security, another drop); and each end checked as port diagnostics check it (unbound, its chassis
 * down, down, disabled), because a logical walk delivers to a port that no chassis hosts. Pure over
 * the two trace views and the two diagnoses (decision 330).
 */
import type { PortDiagnosis } from "./port-diagnostics.ts";
import type { AclRef, TraceStage, TraceStop, TraceView } from "./trace-view.ts";

type BlockReason =
  | "acl_drop"
  | "no_route"
  | "port_security"
  | "dropped"
  | "not_delivered"
  | "no_binding"
  | "unbound_port"
  | "chassis_down"
  | "port_down"
  | "port_disabled";

interface Blocker {
  where: "forward" | "return" | "source" | "destination";
  reason: BlockReason;
  detail: string;
  acl: AclRef | null;
  stage: TraceStage | null;
}

interface PathResult {
  reached: boolean;
  verdict: TraceView["outcome"]["verdict"];
  microflow: string;
  delivered: string[];
  stages: number;
  trace_id: string;
}

interface Endpoint {
  port: string;
  uuid: string;
  switch: string | null;
  ip: string;
  chassis: string | null;
  severity: PortDiagnosis["severity"];
  issues: PortDiagnosis["issues"];
}

export interface Connectivity {
  reachable: boolean;
  source: Endpoint;
  destination: Endpoint;
  packet: { protocol: string; family: 4 | 6; src_port: number | null; dst_port: number | null };
  blockers: Blocker[];
  forward: PathResult;
  return: PathResult;
}

const endpointReasons: Partial<Record<string, BlockReason>> = {
  no_binding: "no_binding",
  unbound: "unbound_port",
  chassis_down: "chassis_down",
  down: "port_down",
  disabled: "port_disabled",
};

function stopReason(stop: TraceStop): { reason: BlockReason; detail: string } {
  const stage = stop.stage?.stage ?? "";
  const at = stop.stage === null ? "" : ` in ${stop.stage.datapath} ${stage || `table ${stop.stage.table}`}`;
  if (stop.acl !== null) {
    const scope =
      stop.acl.scope === null ? "" : ` of ${stop.acl.scope.kind.replace("_", " ")} ${stop.acl.scope.name}`;
    return {
      reason: "acl_drop",
      detail: `${stop.acl.action} by ACL${scope} (${stop.acl.direction}, priority ${stop.acl.priority}): ${stop.acl.match}`,
    };
  }
  if (stage.includes("ip_routing")) return { reason: "no_route", detail: `no route to the destination${at}` };
  if (stage.includes("port_sec"))
    return { reason: "port_security", detail: `the port's security (addresses it may use) drops it${at}` };
  return { reason: "dropped", detail: `${stop.detail}${at}` };
}

/** Whether the view's packet reaches `target`, and the blockers when it does not. */
export function pathBlockers(view: TraceView, target: string, where: "forward" | "return"): Blocker[] {
  if (view.outcome.delivered.some((d) => d.port === target)) return [];
  const stops = view.outcome.stopped.map((s) => ({ where, ...stopReason(s), acl: s.acl, stage: s.stage }));
  if (stops.length > 0) return stops;
  const elsewhere = view.outcome.delivered.map((d) => d.port);
  return [
    {
      where,
      reason: "not_delivered",
      detail:
        elsewhere.length > 0
          ? `delivered to ${elsewhere.join(", ")} instead of ${target}`
          : `never reaches ${target}`,
      acl: null,
      stage: null,
    },
  ];
}

export function endpointBlockers(d: PortDiagnosis, where: "source" | "destination"): Blocker[] {
  return d.issues.flatMap((i) => {
    const reason = endpointReasons[i.code];
    return reason === undefined ? [] : [{ where, reason, detail: i.message, acl: null, stage: null }];
  });
}

export function pathResult(view: TraceView, target: string, traceId: string): PathResult {
  return {
    reached: view.outcome.delivered.some((d) => d.port === target),
    verdict: view.outcome.verdict,
    microflow: view.microflow,
    delivered: view.outcome.delivered.map((d) => d.port),
    stages: view.stages.length,
    trace_id: traceId,
  };
}

export function endpointOf(d: PortDiagnosis, ip: string): Endpoint {
  return {
    port: d.name,
    uuid: d.uuid,
    switch: d.switch?.name ?? null,
    ip,
    chassis: d.binding?.chassis ?? null,
    severity: d.severity,
    issues: d.issues,
  };
}
