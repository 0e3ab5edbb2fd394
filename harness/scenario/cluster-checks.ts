/**
 * The cluster scenario's checks: each fault named with how long the stack took to recover from it,
 * what the collectors' posts were answered meanwhile and what the broker sent again, and the month's
 * events stored exactly once. A 500 answered to a post fails the run: a failover is 503 (decision 143).
 * Then the worker killed while the month was metered by two workers (decision 473).
 */
import type { Check } from "./check.ts";
import { type ClusterSeen, type FaultSeen, retriedText } from "./cluster-faults.ts";
import type { WorkerKillSeen } from "./worker-kill.ts";

const s = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
const day = (at: string) => at.slice(5, 16).replace("T", " ");

function faultCheck(fault: FaultSeen): Check {
  const served500 = fault.retried["500"] ?? 0;
  const problems = [
    ...(fault.problem === undefined ? [] : [fault.problem]),
    ...(served500 > 0 ? [`posts answered 500: ${served500} (a failover must answer 503)`] : []),
  ];
  const recovered =
    fault.kind === "postgres"
      ? `failover in ${s(fault.recoveredMs)} (${fault.recovery})`
      : `recovered in ${s(fault.recoveredMs)} (${fault.recovery})`;
  return {
    status: problems.length === 0 ? "pass" : "fail",
    text: `${fault.target} killed (SIGKILL) at ${day(fault.at)}: ${recovered}; ${retriedText(fault.retried)}; ${fault.redelivered} deliveries redelivered; back in ${s(fault.restartedMs)}`,
    details: problems,
  };
}

export function clusterChecks(seen: ClusterSeen): Check[] {
  const { exactlyOnce } = seen;
  const once =
    exactlyOnce.missing.length === 0 &&
    exactlyOnce.extra.length === 0 &&
    exactlyOnce.stored === exactlyOnce.expected;
  return [
    ...seen.faults.map(faultCheck),
    {
      status: seen.faults.length === 4 ? "pass" : "fail",
      text: `four faults played: ${seen.faults.map((f) => f.kind).join(", ")}`,
      details: [`${seen.faults.length} played`],
    },
    {
      status: once ? "pass" : "fail",
      text: `0 events lost or doubled: the Reporting API holds each of the month's ${exactlyOnce.expected} events exactly once`,
      details: [
        `${exactlyOnce.stored} stored, ${exactlyOnce.missing.length} missing, ${exactlyOnce.extra.length} the month never sent`,
        ...exactlyOnce.missing.slice(0, 5).map((k) => `missing ${k}`),
        ...exactlyOnce.extra.slice(0, 5).map((k) => `not the month's ${k}`),
      ],
    },
    workerKillCheck(seen.workerKill),
  ];
}

/** The worker killed while `engine run --workers 2` metered: the run failed whole and ran again. */
function workerKillCheck(kill: WorkerKillSeen | undefined): Check {
  if (kill === undefined)
    return {
      status: "fail",
      text: "a worker of `engine run --workers 2` killed while metering: the kill did not play",
      details: [],
    };
  return {
    status: kill.problem === undefined ? "pass" : "fail",
    text: `the worker of ${kill.worker || "no shard"} of \`engine run --workers 2\` killed (SIGKILL) while metering, ${s(kill.killedAfterMs)} after the run started: run ${kill.runId} ${kill.status} in ${s(kill.failedInMs)} (exit ${kill.exit}), ${kill.rowsLeft} of its rows kept, ${kill.workersLeft} workers left; run again in ${s(kill.rerun.ms)}: run ${kill.rerun.runId} completed`,
    details: kill.problem === undefined ? [] : [kill.problem],
  };
}
