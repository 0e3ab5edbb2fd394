import { afterAll, beforeAll, expect, test } from "bun:test";
import { existsSync } from "node:fs";
import { connect } from "node:net";
import { isAlive } from "../process/process-table.ts";
import { type OvnService, startOvn } from "./ovn.ts";

let ovn: OvnService;

beforeAll(async () => {
  ovn = await startOvn({ env: {} });
}, 60_000);

afterAll(async () => {
  await ovn?.stop();
});

// One raw JSON-RPC request and its reply: enough to prove the server speaks OVSDB (the real client is
// lib/ovsdb). The reply is small, so waiting until the buffer parses is a sufficient framing here.
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

test("NB and SB answer list_dbs over TCP and unix sockets", async () => {
  expect(await rpc(ovn.nbRemote, "list_dbs", [])).toContain("OVN_Northbound");
  expect(await rpc(ovn.sbRemote, "list_dbs", [])).toContain("OVN_Southbound");
  expect(await rpc(ovn.nbSocket, "list_dbs", [])).toContain("OVN_Northbound");
  expect(await rpc(ovn.sbSocket, "list_dbs", [])).toContain("OVN_Southbound");
});

test("each chassis is registered, with its own encap IP and a TCP management address", async () => {
  expect(ovn.chassis.map((one) => one.systemId)).toEqual(["chassis-1", "chassis-2"]);
  expect(new Set(ovn.chassis.map((one) => one.encapIp)).size).toBe(2);
  const encaps = await ovn.sbctl(["--bare", "--columns=ip", "list", "Encap"]);
  for (const one of ovn.chassis) {
    expect(encaps).toContain(one.encapIp);
    expect(await rpc(one.dbRemote, "list_dbs", [])).toContain("Open_vSwitch");
  }
});

test("a port bound on a chassis is up in the SB, bound to that chassis", async () => {
  await ovn.nbctl(["ls-add", "sw0", "--", "lsp-add", "sw0", "vm1"]);
  await ovn.bindPort(1, "vm1");
  await ovn.nbctl(["--wait=hv", "sync"]);
  const chassisUuid = (
    await ovn.sbctl(["--bare", "--columns=_uuid", "find", "Chassis", "name=chassis-2"])
  ).trim();
  let binding = "";
  for (let attempt = 0; attempt < 100; attempt++) {
    binding = await ovn.sbctl(["--bare", "--columns=chassis,up", "find", "Port_Binding", "logical_port=vm1"]);
    if (binding.includes("true")) break;
    await Bun.sleep(100);
  }
  expect(binding.split(/\s+/).filter(Boolean)).toEqual([chassisUuid, "true"]);
});

test("a chassis's ovsdb-server can be killed and started again on the same address", async () => {
  const db = ovn.chassis[0]?.db;
  if (db === undefined) throw new Error("no chassis");
  const before = db.pid;
  await db.kill();
  expect(db.running).toBe(false);
  expect(before !== undefined && isAlive(before)).toBe(false);
  await db.start();
  expect(await rpc(ovn.chassis[0]?.dbRemote ?? "", "list_dbs", [])).toContain("Open_vSwitch");
});

test("a bare switch database keeps the statistics written to it", async () => {
  const bare = await ovn.startBareVswitchDb();
  await bare.vsctl(["add-br", "br0", "--", "set", "Interface", "br0", "statistics:rx_errors=7"]);
  expect((await bare.vsctl(["get", "Interface", "br0", "statistics:rx_errors"])).trim()).toBe("7");
  expect(await rpc(bare.dbRemote, "list_dbs", [])).toContain("Open_vSwitch");
  await bare.stop();
});

test("stop removes every process and the sandbox dir", async () => {
  const other = await startOvn({ chassis: 1, env: {} });
  const processes = other.processes();
  expect(processes.length).toBeGreaterThanOrEqual(6);
  await other.stop();
  expect(processes.filter(isAlive)).toEqual([]);
  expect(other.dir !== undefined && existsSync(other.dir)).toBe(false);
});
