import { beforeAll, expect, test } from "bun:test";
import { randomBytes } from "node:crypto";
import { connect } from "node:net";
import { isAlive } from "../process/process-table.ts";
import { services } from "../test-services.ts";
import { type OvnService, startOvn } from "./ovn.ts";
import { expectStopLeavesNothing } from "./stop-leaves-nothing.ts";
import { uniqueName } from "./unique-name.ts";

let ovn: OvnService;

// With SVC_TEST_OVN_NB/SB the shared OVN is an external one: it has no chassis of ours.
const sandboxOnly = test.skipIf(Boolean(process.env.SVC_TEST_OVN_NB));

beforeAll(async () => {
  ovn = await services.ovn();
}, 60_000);

// One raw JSON-RPC request and its reply: enough to prove the server speaks OVSDB (the real client is
// lib/network/ovsdb). The reply is small, so waiting until the buffer parses is a sufficient framing here.
function rpc(remote: string, method: string, params: unknown[]): Promise<unknown> {
  const target = remote.startsWith("tcp:")
    ? { host: remote.split(":")[1] ?? "", port: Number(remote.split(":")[2]) }
    : { path: remote.slice("unix:".length) };
  return new Promise((resolve, reject) => {
    const socket = connect(target);
    let buffer = "";
    socket.setEncoding("utf8");
    socket.on("connect", () => socket.write(JSON.stringify({ id: 1, method, params })));
    socket.on("data", (chunk: string) => {
      buffer += chunk;
      try {
        const reply = JSON.parse(buffer) as { result: unknown; error: unknown };
        socket.destroy();
        if (reply.error !== null) reject(new Error(JSON.stringify(reply.error)));
        else resolve(reply.result);
      } catch {
        // Incomplete: wait for more.
      }
    });
    socket.on("error", reject);
  });
}

test("NB and SB answer list_dbs", async () => {
  expect(await rpc(ovn.nbRemote, "list_dbs", [])).toContain("OVN_Northbound");
  expect(await rpc(ovn.sbRemote, "list_dbs", [])).toContain("OVN_Southbound");
});

sandboxOnly("the sandbox's NB and SB also listen on unix sockets", async () => {
  expect(await rpc(ovn.nbSocket, "list_dbs", [])).toContain("OVN_Northbound");
  expect(await rpc(ovn.sbSocket, "list_dbs", [])).toContain("OVN_Southbound");
});

sandboxOnly("each chassis is registered, with its own encap IP and a TCP management address", async () => {
  expect(ovn.chassis.map((one) => one.systemId)).toEqual(["chassis-1", "chassis-2"]);
  expect(new Set(ovn.chassis.map((one) => one.encapIp)).size).toBe(2);
  const encaps = await ovn.sbctl(["--bare", "--columns=ip", "list", "Encap"]);
  for (const one of ovn.chassis) {
    expect(encaps).toContain(one.encapIp);
    expect(await rpc(one.dbRemote, "list_dbs", [])).toContain("Open_vSwitch");
  }
});

sandboxOnly(
  "a port bound on a chassis is up in the SB, bound to that chassis",
  async () => {
    // The sandbox is shared by the run: names of its own (an interface name fits in 15 characters).
    const lsp = `p${randomBytes(4).toString("hex")}`;
    const ls = uniqueName("ls");
    await ovn.nbctl(["ls-add", ls, "--", "lsp-add", ls, lsp]);
    await ovn.bindPort(1, lsp);
    await ovn.nbctl(["--wait=hv", "sync"]);
    const chassisUuid = (
      await ovn.sbctl(["--bare", "--columns=_uuid", "find", "Chassis", "name=chassis-2"])
    ).trim();
    let binding = "";
    for (let attempt = 0; attempt < 100; attempt++) {
      binding = await ovn.sbctl([
        "--bare",
        "--columns=chassis,up",
        "find",
        "Port_Binding",
        `logical_port=${lsp}`,
      ]);
      if (binding.includes("true")) break;
      await Bun.sleep(100);
    }
    expect(binding.split(/\s+/).filter(Boolean)).toEqual([chassisUuid, "true"]);
  },
  30_000,
);

sandboxOnly("a bare switch database keeps the statistics written to it", async () => {
  const bare = await ovn.startBareVswitchDb();
  await bare.vsctl(["add-br", "br0", "--", "set", "Interface", "br0", "statistics:rx_errors=7"]);
  expect((await bare.vsctl(["get", "Interface", "br0", "statistics:rx_errors"])).trim()).toBe("7");
  expect(await rpc(bare.dbRemote, "list_dbs", [])).toContain("Open_vSwitch");
  await bare.stop();
  expect(bare.db.running).toBe(false);
});

test("a chassis's ovsdb-server is killed and started again on its address; stop removes everything", async () => {
  const own = await startOvn({ chassis: 1, env: {} });
  const chassis = own.chassis[0];
  if (chassis === undefined) throw new Error("no chassis");
  const before = chassis.db.pid;
  await chassis.db.kill();
  expect(chassis.db.running).toBe(false);
  expect(before !== undefined && isAlive(before)).toBe(false);
  await chassis.db.start();
  expect(await rpc(chassis.dbRemote, "list_dbs", [])).toContain("Open_vSwitch");
  // ovn-controller reconnects to the restarted database and answers a new NB generation.
  await own.nbctl(["--wait=hv", "--timeout=20", "sync"]);
  expect((await expectStopLeavesNothing(own)).length).toBeGreaterThanOrEqual(6);
}, 60_000);
