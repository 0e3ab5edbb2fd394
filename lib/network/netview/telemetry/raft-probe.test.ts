// Raft health against real ovsdb-servers: a three-member clustered NB (one leader, every member
// connected), then two members stopped: the last one is cut off and no member leads. The sandbox's
// standalone databases answer as standalone.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { eventually } from "../../../../harness/netview/test-support.ts";
import { freePort } from "../../../../harness/process/free-port.ts";
import { type RaftCluster, startRaftCluster } from "../../../../harness/services/raft-cluster.ts";
import { services } from "../../../../harness/test-services.ts";
import { parseRemote, parseRemotes, type Remote } from "../../ovsdb/remote.ts";
import { probeMember, RaftProbe, type RaftStatus, raftHealth } from "./raft-probe.ts";

let cluster: RaftCluster;
let members: RaftCluster["members"] = [];

beforeAll(async () => {
  cluster = await startRaftCluster({ schema: "/usr/share/ovn/ovn-nb.ovsschema", database: "OVN_Northbound" });
  members = cluster.members;
}, 60_000);

afterAll(async () => {
  await cluster?.stop();
});

describe("RaftProbe", () => {
  test("three members: one leader, all connected; two stopped: no leader", async () => {
    const probe = new RaftProbe([{ cluster: "c", nb: members.map((m) => parseRemote(m.remote)), sb: [] }], {
      intervalMs: 60_000,
      timeoutMs: 1000,
    });
    await eventually(async () => {
      await probe.refresh();
      expect(raftHealth(probe.status("c")[0] as RaftStatus)).toMatchObject({
        state: "healthy",
        clustered: true,
        members: 3,
        connected: 3,
      });
    }, 30_000);
    const [nb] = probe.status("c");
    expect(nb?.members.filter((m) => m.leader).length).toBe(1);
    expect(
      nb?.members.every((m) => m.model === "clustered" && m.sid !== null && m.cid === nb.members[0]?.cid),
    ).toBe(true);
    expect(raftHealth(nb as RaftStatus).leader).toBe(nb?.members.find((m) => m.leader)?.remote as string);

    await members[1]?.daemon.stop();
    await members[2]?.daemon.stop();
    await eventually(async () => {
      await probe.refresh();
      const health = raftHealth(probe.status("c")[0] as RaftStatus);
      expect(health).toMatchObject({ state: "no_leader", reachable: 1, leader: null });
    }, 30_000);
    const down = probe.status("c")[0]?.members.filter((m) => !m.reachable) ?? [];
    expect(down.map((m) => m.remote).sort()).toEqual(
      [members[1]?.remote as string, members[2]?.remote as string].sort(),
    );
  }, 90_000);

  test("the sandbox's databases are standalone; a closed port is unreachable", async () => {
    const ovn = await services.ovn();
    const member = await probeMember(parseRemotes(ovn.nbRemote)[0] as Remote, "OVN_Northbound", {
      timeoutMs: 1000,
    });
    expect(member).toMatchObject({
      reachable: true,
      model: "standalone",
      connected: true,
      leader: true,
      error: null,
    });
    const port = await freePort();
    const gone = await probeMember(parseRemote(`tcp:127.0.0.1:${port}`), "OVN_Northbound", {
      timeoutMs: 1000,
    });
    expect(gone.reachable).toBe(false);
    expect(gone.error).not.toBeNull();
    const probe = new RaftProbe(
      [{ cluster: "x", nb: parseRemotes(ovn.nbRemote), sb: parseRemotes(ovn.sbRemote) }],
      { intervalMs: 60_000, timeoutMs: 1000 },
    );
    await probe.refresh();
    expect(probe.status("x").map((s) => raftHealth(s).state)).toEqual(["standalone", "standalone"]);
  }, 30_000);
});
