// Against a real ovsdb-server serving the NB schema, started in a temp dir for this file only.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Subprocess } from "bun";
import { cliTableRows } from "./cli-table.ts";
import { OvsdbClient } from "./ovsdb-client.ts";
import { parseRemote } from "./remote.ts";
import { RpcConnection } from "./rpc-connection.ts";

const schemaPath = "/usr/share/ovn/ovn-nb.ovsschema";
let dir = "";
let server: Subprocess | undefined;
let port = 0;

async function freePort(): Promise<number> {
  const listener = Bun.listen({ hostname: "127.0.0.1", port: 0, socket: { data() {} } });
  const p = listener.port;
  listener.stop(true);
  return p;
}

async function startServer(): Promise<void> {
  server = Bun.spawn(
    [
      "ovsdb-server",
      join(dir, "nb.db"),
      `--remote=punix:${join(dir, "nb.sock")}`,
      `--remote=ptcp:${port}:127.0.0.1`,
      `--unixctl=${join(dir, "nb.ctl")}`,
      `--log-file=${join(dir, "nb.log")}`,
    ],
    { stdout: "ignore", stderr: "ignore" },
  );
  for (let i = 0; i < 100; i++) {
    if (existsSync(join(dir, "nb.sock"))) return;
    await Bun.sleep(20);
  }
  throw new Error("ovsdb-server did not start");
}

async function stopServer(): Promise<void> {
  server?.kill("SIGTERM");
  await server?.exited;
  server = undefined;
}

function nbctl(...args: string[]): string {
  const result = Bun.spawnSync(["ovn-nbctl", `--db=unix:${join(dir, "nb.sock")}`, ...args]);
  if (result.exitCode !== 0) throw new Error(`ovn-nbctl ${args.join(" ")}: ${result.stderr.toString()}`);
  return result.stdout.toString();
}

async function until(condition: () => boolean, ms = 5000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error("condition not met in time");
    await Bun.sleep(10);
  }
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "svc-ovsdb-client-"));
  Bun.spawnSync(["ovsdb-tool", "create", join(dir, "nb.db"), schemaPath]);
  port = await freePort();
  await startServer();
});

afterAll(async () => {
  await stopServer();
  rmSync(dir, { recursive: true, force: true });
});

describe("OvsdbClient against ovsdb-server", () => {
  test("syncs, follows updates, and agrees with ovn-nbctl row for row", async () => {
    const client = new OvsdbClient({
      remotes: [parseRemote(`unix:${join(dir, "nb.sock")}`)],
      database: "OVN_Northbound",
    });
    client.start();
    try {
      await client.ready();
      expect(client.cache.authoritative).toBe(true);
      nbctl("init");
      await until(() => client.cache.count("NB_Global") === 1);
      nbctl("ls-add", "sw0", "--", "set", "Logical_Switch", "sw0", "other_config:subnet=10.0.0.0/24");
      nbctl("lsp-add", "sw0", "p1", "--", "lsp-set-addresses", "p1", "00:00:00:00:00:01 10.0.0.1", "unknown");
      nbctl("lsp-add", "sw0", "p2", "--", "set", "Logical_Switch_Port", "p2", "tag_request=7");
      nbctl("acl-add", "sw0", "to-lport", "100", "ip4", "allow");
      nbctl("lsp-set-addresses", "p1", "router");
      nbctl(
        "remove",
        "Logical_Switch",
        "sw0",
        "other_config",
        "subnet",
        "--",
        "set",
        "Logical_Switch",
        "sw0",
        "other_config:a=b",
      );
      nbctl("lsp-del", "p2");
      const schema = client.cache.schema;
      if (schema === undefined) throw new Error("no schema");
      await until(() => {
        const ls = client.cache.rows("Logical_Switch")[0];
        return (
          client.cache.count("Logical_Switch_Port") === 1 &&
          ls?.other_config !== undefined &&
          "a" in (ls.other_config as object)
        );
      });
      for (const table of ["Logical_Switch", "Logical_Switch_Port", "ACL", "NB_Global"]) {
        const tableSchema = schema.tables[table];
        if (tableSchema === undefined) throw new Error(table);
        const cli = cliTableRows(nbctl("--format=json", "list", table), tableSchema);
        const byUuid = (a: { _uuid: string }, b: { _uuid: string }) => (a._uuid < b._uuid ? -1 : 1);
        expect(client.cache.rows(table).sort(byUuid)).toEqual(cli.sort(byUuid));
      }
    } finally {
      client.stop();
    }
  });

  test("transact over TCP, answers echo, and resyncs after the server restarts", async () => {
    const client = new OvsdbClient({
      remotes: [parseRemote(`tcp:127.0.0.1:${port}`)],
      database: "OVN_Northbound",
      probeIntervalMs: 100,
      backoff: { initialMs: 50, maxMs: 200 },
    });
    client.start();
    try {
      await client.ready();
      const result = await client.transact([
        { op: "insert", table: "Logical_Router", row: { name: "r-tx", options: ["map", [["k", "v"]]] } },
      ]);
      expect(result[0]).toHaveProperty("uuid");
      await until(() => client.cache.rows("Logical_Router").some((r) => r.name === "r-tx"));
      // Idle well past the probe interval: our echoes keep the session, the server's are answered.
      await Bun.sleep(500);
      expect([client.state, client.lastError]).toEqual(["synced", undefined]);
      const syncs = client.syncs;
      await stopServer();
      await until(() => !client.cache.authoritative);
      expect(client.cache.rows("Logical_Router").some((r) => r.name === "r-tx")).toBe(true);
      await startServer();
      nbctl("lr-add", "r-after");
      await client.ready();
      await until(() => client.cache.rows("Logical_Router").some((r) => r.name === "r-after"));
      expect(client.syncs).toBe(syncs + 1);
    } finally {
      client.stop();
    }
  });

  test("rows written while the first select is read end as the server has them", async () => {
    const db = "OVN_Northbound";
    const writer = await RpcConnection.open(parseRemote(`unix:${join(dir, "nb.sock")}`), {
      probeIntervalMs: 0,
    });
    const addresses = (i: number) => ["set", Array.from({ length: 20 }, (_, k) => `10.${i % 250}.${k}.1`)];
    await writer.request("transact", [
      db,
      ...Array.from({ length: 3000 }, (_, i) => ({
        op: "insert",
        table: "Address_Set",
        row: { name: `as${i}`, addresses: addresses(i) },
      })),
    ]);
    const client = new OvsdbClient({ remotes: [parseRemote(`tcp:127.0.0.1:${port}`)], database: db });
    // Inserts, updates and deletes race the sync: some commit before the select is read, some after.
    let writing = true;
    const writes = (async () => {
      for (let i = 0; writing && i < 1000; i++) {
        await writer.request("transact", [
          db,
          { op: "insert", table: "Address_Set", row: { name: `w${i}` } },
          {
            op: "update",
            table: "Address_Set",
            where: [["name", "==", `as${i}`]],
            row: { addresses: addresses(i + 1) },
          },
          { op: "delete", table: "Address_Set", where: [["name", "==", `as${i + 1500}`]] },
        ]);
      }
    })();
    client.start();
    try {
      await client.ready();
      writing = false;
      await writes;
      const schema = client.cache.schema?.tables.Address_Set;
      if (schema === undefined) throw new Error("no schema");
      const byUuid = (a: { _uuid: string }, b: { _uuid: string }) => (a._uuid < b._uuid ? -1 : 1);
      const server = () => cliTableRows(nbctl("--format=json", "list", "Address_Set"), schema).sort(byUuid);
      const expected = server();
      await until(() => client.cache.count("Address_Set") === expected.length);
      expect(client.cache.rows("Address_Set").sort(byUuid)).toEqual(expected);
      expect(client.syncs).toBe(1);
    } finally {
      client.stop();
      await writer.request("transact", [db, { op: "delete", table: "Address_Set", where: [] }]);
      writer.close();
    }
  });

  test("suspend keeps the cache and stays away; resume reloads every row", async () => {
    const client = new OvsdbClient({
      remotes: [parseRemote(`tcp:127.0.0.1:${port}`)],
      database: "OVN_Northbound",
      backoff: { initialMs: 50, maxMs: 200 },
    });
    client.start();
    try {
      await client.ready();
      nbctl("lr-add", "r-suspend");
      await until(() => client.cache.rows("Logical_Router").some((r) => r.name === "r-suspend"));
      client.suspend();
      expect([client.state, client.cache.authoritative]).toEqual(["suspended", false]);
      nbctl("lr-del", "r-suspend", "--", "lr-add", "r-while-suspended");
      await Bun.sleep(300);
      // Nothing reaches the cache while suspended, and no reconnect was tried.
      const names = () => client.cache.rows("Logical_Router").map((r) => r.name);
      expect(names()).toContain("r-suspend");
      expect(names()).not.toContain("r-while-suspended");
      expect(client.state).toBe("suspended");
      client.resume();
      await client.ready();
      expect(names()).toContain("r-while-suspended");
      expect(names()).not.toContain("r-suspend");
    } finally {
      client.stop();
    }
  });

  test("monitor_cond_since resumes a clustered database without a reload", async () => {
    const cdir = mkdtempSync(join(tmpdir(), "svc-ovsdb-cluster-"));
    const raftPort = await freePort();
    const clientPort = await freePort();
    Bun.spawnSync([
      "ovsdb-tool",
      "create-cluster",
      join(cdir, "nb.db"),
      schemaPath,
      `tcp:127.0.0.1:${raftPort}`,
    ]);
    const start = () =>
      Bun.spawn(
        [
          "ovsdb-server",
          join(cdir, "nb.db"),
          `--remote=ptcp:${clientPort}:127.0.0.1`,
          `--unixctl=${join(cdir, "ctl")}`,
          `--log-file=${join(cdir, "log")}`,
        ],
        { stdout: "ignore", stderr: "ignore" },
      );
    let clustered = start();
    const client = new OvsdbClient({
      remotes: [parseRemote(`tcp:127.0.0.1:${clientPort}`)],
      database: "OVN_Northbound",
      backoff: { initialMs: 50, maxMs: 200 },
    });
    try {
      client.start();
      await client.ready();
      await client.transact([{ op: "insert", table: "Logical_Switch", row: { name: "c1" } }]);
      await until(() => client.cache.count("Logical_Switch") === 1);
      clustered.kill("SIGTERM");
      await clustered.exited;
      await until(() => !client.cache.authoritative);
      clustered = start();
      await client.ready();
      expect(client.resumes).toBe(1);
      await client.transact([{ op: "insert", table: "Logical_Switch", row: { name: "c2" } }]);
      await until(() => client.cache.count("Logical_Switch") === 2);
    } finally {
      client.stop();
      clustered.kill("SIGTERM");
      await clustered.exited;
      rmSync(cdir, { recursive: true, force: true });
    }
  });

  test("ssl: verifies the chain against the CA (not the name), refuses another CA", async () => {
    const tdir = mkdtempSync(join(tmpdir(), "svc-ovsdb-tls-"));
    const sh = (...args: string[]) => {
      const r = Bun.spawnSync(args, { cwd: tdir });
      if (r.exitCode !== 0) throw new Error(`${args.join(" ")}: ${r.stderr.toString()}`);
    };
    // A new RSA key in <name>.key, and the request's subject.
    const key = (name: string) => [
      "-newkey",
      "rsa:2048",
      "-nodes",
      "-keyout",
      `${name}.key`,
      "-subj",
      `/CN=${name}`,
    ];
    const selfSigned = (name: string) =>
      sh("openssl", "req", "-x509", ...key(name), "-out", `${name}.pem`, "-days", "2");
    selfSigned("ca");
    selfSigned("other-ca");
    for (const name of ["server", "client"]) {
      sh("openssl", "req", ...key(name), "-out", `${name}.csr`);
      sh(
        "openssl",
        "x509",
        "-req",
        "-in",
        `${name}.csr`,
        "-CA",
        "ca.pem",
        "-CAkey",
        "ca.key",
        "-CAcreateserial",
        "-out",
        `${name}.pem`,
        "-days",
        "2",
      );
    }
    const read = (name: string) => readFileSync(join(tdir, name), "utf8");
    const sslPort = await freePort();
    // The same database file behind an ssl remote: the first server must let go of it.
    await stopServer();
    const tlsServer = Bun.spawn(
      [
        "ovsdb-server",
        join(dir, "nb.db"),
        `--remote=pssl:${sslPort}:127.0.0.1`,
        `--private-key=${join(tdir, "server.key")}`,
        `--certificate=${join(tdir, "server.pem")}`,
        `--ca-cert=${join(tdir, "ca.pem")}`,
        `--unixctl=${join(tdir, "ctl")}`,
        `--log-file=${join(tdir, "log")}`,
      ],
      { stdout: "ignore", stderr: "ignore" },
    );
    const client = (ca: string) =>
      new OvsdbClient({
        remotes: [parseRemote(`ssl:127.0.0.1:${sslPort}`)],
        database: "OVN_Northbound",
        tls: { key: read("client.key"), cert: read("client.pem"), ca: read(ca) },
        backoff: { initialMs: 50, maxMs: 100 },
      });
    const good = client("ca.pem");
    const bad = client("other-ca.pem");
    try {
      good.start();
      bad.start();
      await good.ready();
      expect(good.cache.schema?.name).toBe("OVN_Northbound");
      // Until the server listens the error is a refused connect; then the handshake refusal.
      await until(() => bad.lastError?.includes("TLS peer refused") === true);
      expect(bad.cache.authoritative).toBe(false);
    } finally {
      good.stop();
      bad.stop();
      tlsServer.kill("SIGTERM");
      await tlsServer.exited;
      rmSync(tdir, { recursive: true, force: true });
      await startServer();
    }
  });

  test("an unknown database is a clear failure, retried", async () => {
    const client = new OvsdbClient({
      remotes: [parseRemote(`unix:${join(dir, "nb.sock")}`)],
      database: "Nope",
      backoff: { initialMs: 20, maxMs: 40 },
    });
    client.start();
    // The server restarted by the test before may not listen yet: a refused connect comes first, then,
    // retried, the refusal of the database.
    await until(() => client.lastError?.includes("unknown database") === true);
    expect(client.cache.authoritative).toBe(false);
    client.stop();
  });
});
