import { expect, test } from "bun:test";
import { existsSync, readdirSync } from "node:fs";
import { AMQPClient } from "@cloudamqp/amqp-client";
import postgres from "postgres";
import { currentRoot } from "../process/cleanup-registry.ts";
import { isAlive, processesUnder, treeOf } from "../process/process-table.ts";
import { allServices, type Services, startServices } from "./services.ts";

function endpoints(set: Services): string[] {
  return [
    set.postgres?.url,
    set.rabbitmq?.url,
    set.rabbitmq?.managementUrl,
    set.ovn?.nbRemote,
    set.ovn?.sbRemote,
    ...(set.ovn?.chassis.map((one) => one.dbRemote) ?? []),
    set.victoriaMetrics?.url,
  ].map((url) => new URL(url?.replace(/^tcp:/, "tcp://") ?? "x:").port);
}

function processes(set: Services): number[] {
  return [set.postgres, set.rabbitmq, set.ovn, set.victoriaMetrics].flatMap((one) => one?.processes() ?? []);
}

function dirs(set: Services): string[] {
  return [set.postgres?.dir, set.rabbitmq?.dir, set.ovn?.dir, set.victoriaMetrics?.dir].filter(
    (dir) => dir !== undefined,
  );
}

async function use(set: Services): Promise<void> {
  const sql = postgres(set.postgres?.url ?? "", { max: 1, onnotice: () => {} });
  const [row] = await sql<{ one: number }[]>`select 1 as one`;
  expect(row?.one).toBe(1);
  await sql.end();
  const amqp = new AMQPClient(set.rabbitmq?.url ?? "");
  await amqp.connect();
  await amqp.close();
  expect(await set.ovn?.nbctl(["--bare", "--columns=name", "list", "NB_Global"])).toBeDefined();
  expect((await fetch(`${set.victoriaMetrics?.url}/health`)).ok).toBe(true);
}

test("two full harnesses start in parallel on separate ports and dirs, and stop without a trace", async () => {
  const [a, b] = await Promise.all([startServices({ env: {} }), startServices({ env: {} })]);
  try {
    for (const set of [a, b]) expect(Object.keys(set.startMs).sort()).toEqual([...allServices].sort());
    const ports = [...endpoints(a), ...endpoints(b)];
    expect(ports.filter((port) => port === "")).toEqual([]);
    expect(new Set(ports).size).toBe(ports.length);
    expect(new Set([...dirs(a), ...dirs(b)]).size).toBe(8);
    expect(a.rabbitmq?.nodeName).not.toBe(b.rabbitmq?.nodeName);
    await Promise.all([use(a), use(b)]);
  } finally {
    const running = [...processes(a), ...processes(b)];
    const made = [...dirs(a), ...dirs(b)];
    await Promise.all([a.stop(), b.stop()]);
    expect(running.length).toBeGreaterThan(15);
    expect(running.filter(isAlive)).toEqual([]);
    expect(made.filter((dir) => existsSync(dir))).toEqual([]);
    const epmd = Bun.spawnSync(["epmd", "-names"]).stdout.toString();
    for (const node of [a.rabbitmq?.nodeName, b.rabbitmq?.nodeName]) {
      expect(epmd).not.toContain(`name ${node?.split("@")[0]} `);
    }
  }
}, 120_000);

test("a failed start stops the services that did start", async () => {
  // An external OVN that names only one database is refused, while the others start and must go.
  const root = currentRoot();
  const before =
    root === undefined ? [] : readdirSync(root).filter((name) => name.startsWith("victoria-metrics-"));
  const running = root === undefined ? [] : processesUnder(root);
  const failed = startServices({
    only: ["victoriaMetrics", "ovn"],
    env: { SVC_TEST_OVN_NB: "tcp:127.0.0.1:1" },
  });
  await expect(failed).rejects.toThrow(/SVC_TEST_OVN_NB and SVC_TEST_OVN_SB/);
  const after = currentRoot();
  if (after !== undefined) {
    const stores = readdirSync(after).filter((name) => name.startsWith("victoria-metrics-"));
    expect(stores.filter((name) => !before.includes(name))).toEqual([]);
    // A child the services already running forked meanwhile (a PostgreSQL backend or autovacuum
    // worker, seen in a CI run) is theirs, not one the failed start left behind.
    const theirs = new Set(running.flatMap(treeOf));
    expect(processesUnder(after).filter((pid) => !theirs.has(pid))).toEqual([]);
  }
}, 30_000);
