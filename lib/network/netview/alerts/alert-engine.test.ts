// The alert engine over a real clustered NB (three ovsdb-servers in raft) beside the sandbox's SB:
// healthy, nothing fires; two members stopped, the last one has no leader and raft_no_leader fires
// once that has held for the rule's `for`, as the telemetry and /metrics say too; the members back,
// it resolves by itself.
import { describe, expect, test } from "bun:test";
import { startRouteTest } from "../../../../harness/netview/route-test.ts";
import { send } from "../../../../harness/netview/send.ts";
import { eventually, fixtureForFile } from "../../../../harness/netview/test-support.ts";
import { type RaftCluster, startRaftCluster } from "../../../../harness/services/raft-cluster.ts";
import { services } from "../../../../harness/test-services.ts";
import type { Alert } from "./alert-engine.ts";

let raft: RaftCluster;
const fx = fixtureForFile(async () => {
  const ovn = await services.ovn();
  raft = await startRaftCluster({ schema: "/usr/share/ovn/ovn-nb.ovsschema", database: "OVN_Northbound" });
  return startRouteTest({
    databases: { nbRemote: raft.remotes, sbRemote: ovn.sbRemote },
    ops: { raftProbeMs: 300, alertEveryMs: 200 },
    metrics: true,
    cleanup: () => raft.stop(),
  });
}, 90_000);

const get = async (path: string) => (await send(fx().app, "GET", path)).body;

const raftAlerts = async () =>
  ((await get("/api/v1/alerts")) as Alert[]).filter((a) => a.rule === "raft_no_leader");

interface Health {
  database: string;
  state: string;
  members: number;
  reachable: number;
  connected: number;
  leader: string | null;
}

const nbHealth = async () =>
  ((await get("/api/v1/telemetry/raft-health")) as Health[]).find((h) => h.database === "nb");

describe("raft_no_leader", () => {
  test("fires on a clustered NB that lost two of three members, after its `for`; resolves when they return", async () => {
    await eventually(async () => {
      expect(await nbHealth()).toMatchObject({ state: "healthy", members: 3, connected: 3 });
    }, 30_000);
    type Member = { remote: string; model: string; leader: boolean };
    const databases = (await get("/api/v1/telemetry/cluster")) as { name: string; members: Member[] }[];
    const members = databases.find((d) => d.name === "OVN_Northbound")?.members ?? [];
    expect(members.map((m) => m.remote).sort()).toEqual(raft.members.map((m) => m.remote).sort());
    expect(members.every((m) => m.model === "clustered")).toBe(true);
    expect(members.filter((m) => m.leader).length).toBe(1);
    expect(await raftAlerts()).toEqual([]);

    const [survivor, ...stopped] = raft.members;
    await Promise.all(stopped.map((m) => m.daemon.stop()));
    try {
      await eventually(async () => {
        expect(await nbHealth()).toMatchObject({ state: "no_leader", reachable: 1, leader: null });
      }, 30_000);
      let alert: Alert | undefined;
      await eventually(async () => {
        [alert] = await raftAlerts();
        expect(alert).toBeDefined();
      }, 40_000);
      expect(alert).toMatchObject({
        id: "raft_no_leader/default/nb",
        severity: "critical",
        subject: "nb",
        silenced: false,
        message: "no connected member of the nb cluster leads (1 of 3 answer)",
      });
      const rule = ((await get("/api/v1/alerts/rules")) as { name: string; for_ms: number }[]).find(
        (r) => r.name === "raft_no_leader",
      );
      expect(Date.parse(alert?.fired_at ?? "") - Date.parse(alert?.since ?? "")).toBeGreaterThanOrEqual(
        rule?.for_ms ?? Number.NaN,
      );
      const metrics = String(await get("/metrics"));
      expect(metrics).toContain('netview_raft_has_leader{cluster="default",database="nb"} 0');
      expect(metrics).toContain(
        `netview_raft_member_up{cluster="default",database="nb",member="${survivor?.remote}"} 1`,
      );
      expect(metrics).toMatch(
        /netview_alerts_firing\{rule="raft_no_leader",severity="critical",silenced="false"[^}]*\} 1/,
      );
    } finally {
      await Promise.all(stopped.map((m) => m.daemon.start()));
    }
    await eventually(async () => {
      expect(await nbHealth()).toMatchObject({ state: "healthy", connected: 3 });
      expect(await raftAlerts()).toEqual([]);
    }, 30_000);
  }, 150_000);
});
