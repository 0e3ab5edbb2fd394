// Issue 30 item 4: real answers of every netview route match its OpenAPI document. Every operation
// of the served document is called with real data (the debug topology, both chassis switches, the
// operations and writes on), every answer is checked against the operation's declared statuses and
// schemas (harness/netview/response-contract.ts), and the last test shows that each operation was
// answered with success at least once (the few that cannot be, for want of rows, are named).
import { describe, expect, test } from "bun:test";
import { type CallOptions, startFullFixture } from "../../../harness/netview/full-fixture.ts";
import type { Answer } from "../../../harness/netview/send.ts";
import { eventually, fixtureForFile } from "../../../harness/netview/test-support.ts";

const fx = fixtureForFile(startFullFixture);
/** "METHOD template" → the statuses it answered. */
const answered = new Map<string, number[]>();

async function call(method: string, path: string, options?: CallOptions): Promise<Answer> {
  const answer = await fx().call(method, path, options);
  const op = fx().contract.operation(method, path);
  if (op !== undefined) {
    const key = `${method} ${op.template}`;
    answered.set(key, [...(answered.get(key) ?? []), answer.status]);
  }
  return answer;
}

async function ok(method: string, path: string, options?: CallOptions): Promise<Answer> {
  const answer = await call(method, path, options);
  if (answer.status >= 300) throw new Error(`${method} ${path}: ${answer.status} ${answer.text}`);
  return answer;
}

type Item = Record<string, unknown>;
const first = (answer: Answer): Item | undefined => (answer.body as Item[])[0];
const idOf = (item: Item | undefined) =>
  String(item?._uuid ?? item?.uuid ?? item?.name ?? item?.id ?? item?.system_id ?? "none");

const prefixes = ["/api/v1", "/api/v1/clusters/default"];
/** Templates below the default cluster's prefix, which the cluster prefix mirrors. */
const bare = (template: string) => template.replace(/^\/api\/v1\/clusters\/\{cluster\}/, "/api/v1");
const mirrored = (template: string) => template.startsWith("/api/v1/clusters/{cluster}/");

/** Query parameters a GET needs to answer with success. */
const queries: Record<string, string> = {
  "/api/v1/search": "?q=dbg",
  "/api/v1/debug/connectivity": "?src=dbg-p0&dst=dbg-p1",
  "/api/v1/debug/nexthop-mac": "?router=dbg-lr0&ip=10.0.0.11",
  "/api/v1/debug/trace": "?inport=dbg-p0&ip_dst=10.0.0.12",
};

const getTemplates = () =>
  Object.entries(fx().document.paths)
    .filter(([, methods]) => methods.get !== undefined)
    .map(([template]) => template)
    .filter((t) => t !== "/api/v1/ws");

describe("every GET route", () => {
  test("without path parameters (and under the cluster prefix)", async () => {
    for (const template of getTemplates()) {
      const path = template.replace("{cluster}", "default");
      if (path.includes("{")) continue;
      if (bare(template) === "/api/v1/snapshots/diff") continue; // needs a snapshot: below
      await ok("GET", `${path}${queries[bare(template)] ?? ""}`);
    }
    const text = await ok("GET", "/api/v1/debug/trace?inport=dbg-p0&ip_dst=10.0.0.12&format=summary");
    expect(text.headers.get("content-type")).toStartWith("text/plain");
  }, 120_000);

  test("with path parameters, each taken from the list it belongs to", async () => {
    const list = async (path: string) => ok("GET", path);
    const lists: Record<string, () => Promise<string>> = {
      "/api/v1/correlated/logical-switch-ports/{uuid}": async () =>
        idOf(first(await list("/api/v1/nb/logical-switch-ports"))),
      "/api/v1/correlated/logical-router-ports/{uuid}": async () =>
        idOf(first(await list("/api/v1/nb/logical-router-ports"))),
      "/api/v1/correlated/port-bindings/{uuid}": async () =>
        idOf(first(await list("/api/v1/sb/port-bindings"))),
      "/api/v1/sb/chassis-inventory/{name}": async () =>
        String(first(await list("/api/v1/sb/chassis-inventory"))?.name),
      "/api/v1/debug/port-diagnostics/{uuid}": async () =>
        idOf(((await list("/api/v1/debug/port-diagnostics")).body as { ports: Item[] }).ports[0]),
    };
    const chassis = idOf(first(await list("/api/v1/ovs")));
    const iface = idOf(first(await list(`/api/v1/ovs/${chassis}/interface`)));
    const lswitch = idOf(first(await list("/api/v1/nb/logical-switches")));
    const fixed: Record<string, string> = {
      "/api/v1/ovs/{chassis}/{table}": `/api/v1/ovs/${chassis}/bridge`,
      "/api/v1/ovs/{chassis}/{table}/{uuid}": `/api/v1/ovs/${chassis}/interface/${iface}`,
      "/api/v1/ovs/{chassis}/interface/{uuid}/correlation": `/api/v1/ovs/${chassis}/interface/${iface}/correlation`,
      "/api/v1/impact/{db}/{table}/{uuid}": `/api/v1/impact/nb/logical-switches/${lswitch}`,
      "/api/v1/clusters/{cluster}": "/api/v1/clusters/default",
    };
    for (const template of getTemplates()) {
      const own = bare(template);
      if (!own.includes("{") || own.startsWith("/api/v1/snapshots") || own.startsWith("/api/v1/write"))
        continue;
      if (/\/(traces|trace)\/\{id\}$/.test(own) || own === "/api/v1/clusters/{cluster}") continue;
      let path = fixed[own];
      if (path === undefined) {
        const resolve = lists[own];
        const value =
          resolve !== undefined ? await resolve() : idOf(first(await list(own.replace(/\/\{[^}]+\}$/, ""))));
        path = own.replace(/\{[^}]+\}$/, value);
      }
      const prefixed = mirrored(template) ? path.replace(/^\/api\/v1/, "/api/v1/clusters/default") : path;
      // A table with no rows has no detail to show: the 404 it answers is checked all the same.
      await call("GET", prefixed);
    }
    await ok("GET", "/api/v1/clusters/default");
  }, 120_000);
});

describe("operations", () => {
  let snapshot = "";

  test("snapshots: take, read, diff, export, import, load, unload, delete", async () => {
    snapshot = String(
      ((await ok("POST", "/api/v1/snapshots", { body: { label: "contract" } })).body as Item).id,
    );
    await ok("POST", "/api/v1/snapshots", {}); // an empty body takes the defaults
    await ok("GET", `/api/v1/snapshots/${snapshot}`);
    await ok("GET", `/api/v1/snapshots/${snapshot}/rows?database=nb&table=logical-switches`);
    await ok("GET", `/api/v1/snapshots/diff?from=${snapshot}`);
    const exported = await ok("GET", `/api/v1/snapshots/${snapshot}/export`);
    const imported = String(
      ((await ok("POST", "/api/v1/snapshots/import", { body: exported.body })).body as Item).id,
    );
    await ok("GET", `/api/v1/snapshots/diff?from=${snapshot}&to=${imported}&database=nb`);
    await ok("POST", `/api/v1/snapshots/${imported}/load`);
    await call("GET", "/readyz"); // 503 while loaded, declared
    await ok("POST", `/api/v1/snapshots/${imported}/unload`);
    await ok("DELETE", `/api/v1/snapshots/${imported}`);
    await call("GET", `/api/v1/snapshots/${imported}`);
    await fx().clusters.defaultCluster.nb.ready();
  }, 60_000);

  test("writes: preview, dry-run, apply, rollback, cancel, failover, evacuate, restore, the audit", async () => {
    const plan = async (path: string, body: unknown) =>
      String(((await ok("POST", path, { body })).body as Item).id);
    await ok("GET", "/api/v1/write/schema");
    const ops = {
      operations: [
        { op: "insert", table: "Logical_Switch", ref: "ls", row: { name: "dbg-contract" } },
        {
          op: "update",
          table: "Logical_Switch",
          uuid: "@ls",
          set: { other_config: { subnet: "10.9.9.0/24" } },
        },
      ],
    };
    await plan("/api/v1/write/dry-run", ops);
    const applied = await plan("/api/v1/write/preview", ops);
    await ok("GET", `/api/v1/write/plans/${applied}`);
    await ok("POST", `/api/v1/write/plans/${applied}/apply`);
    await call("POST", `/api/v1/write/plans/${applied}/apply`); // 409: not prepared
    const rollback = await plan("/api/v1/write/rollback", { plan: applied });
    await ok("POST", `/api/v1/write/plans/${rollback}/apply`);
    const cancelled = await plan("/api/v1/write/preview", ops);
    await ok("DELETE", `/api/v1/write/plans/${cancelled}`);
    const failover = await plan("/api/v1/write/failover", { router_port: "dbg-lrp-pub" });
    await ok("DELETE", `/api/v1/write/plans/${failover}`);
    await plan("/api/v1/write/evacuate", { chassis: fx().ovn.chassis[0]?.systemId });
    // A switch the snapshot does not have, which the restore then removes.
    const extra = await plan("/api/v1/write/preview", {
      operations: [{ op: "insert", table: "Logical_Switch", row: { name: "dbg-contract2" } }],
    });
    await ok("POST", `/api/v1/write/plans/${extra}/apply`);
    const restore = await plan("/api/v1/write/restore", { snapshot, tables: ["Logical_Switch"] });
    await ok("POST", `/api/v1/write/plans/${restore}/apply`);
    expect(
      (
        await fx().ovn.nbctl(["--bare", "--columns=name", "find", "Logical_Switch", "name=dbg-contract2"])
      ).trim(),
    ).toBe("");
    const audit = await ok("GET", "/api/v1/write/audit?limit=5");
    await ok("GET", `/api/v1/write/audit/${idOf(first(audit))}`);
    await call("POST", "/api/v1/write/preview", { body: { operations: [] } }); // 400, declared
    await call("GET", "/api/v1/write/schema", { auth: null }); // 401, declared
  }, 60_000);

  test("the events the writes made", async () => {
    const events = await ok("GET", "/api/v1/events?table=Logical_Switch&limit=10");
    expect((events.body as { events: unknown[] }).events.length).toBeGreaterThan(0);
  });

  test("alerts: a rule changed and put back, one firing, a silence made and removed", async () => {
    // Unbound VIF ports (dbg-p1, dbg-p2, dbg-q1) fire ports_unbound as soon as it waits for nothing.
    await ok("PUT", "/api/v1/alerts/rules/ports_unbound", { body: { for: "0" } });
    await eventually(async () =>
      expect(((await ok("GET", "/api/v1/alerts")).body as Item[]).map((a) => a.rule)).toContain(
        "ports_unbound",
      ),
    );
    await ok("PUT", "/api/v1/alerts/rules/ports_unbound", { body: { for: null } });
    const silence = await ok("POST", "/api/v1/alerts/silences", {
      body: { matchers: { rule: "chassis_down" }, comment: "contract", duration: "1h" },
    });
    await ok("GET", "/api/v1/alerts/silences");
    await ok("GET", "/api/v1/alerts?silenced=include");
    await ok("DELETE", `/api/v1/alerts/silences/${(silence.body as Item).id}`);
  });

  test("traces and exports", async () => {
    const trace = await ok("GET", "/api/v1/debug/trace?inport=dbg-p0&ip_dst=10.0.0.12");
    const id = String((trace.body as Item).id);
    for (const prefix of prefixes) await ok("GET", `${prefix}/debug/traces/${id}`);
    await ok("GET", `/api/v1/export/trace/${id}`);
    await call("GET", "/api/v1/export/trace/nope");
  });
});

test("every operation of the document was answered, with success unless it has nothing to show", () => {
  const never: string[] = [];
  const unsuccessful: string[] = [];
  for (const [template, methods] of Object.entries(fx().document.paths)) {
    for (const method of Object.keys(methods)) {
      const key = `${method.toUpperCase()} ${template}`;
      if (template === "/api/v1/ws") continue; // a WebSocket upgrade: history-routes.test.ts opens it
      const statuses = answered.get(key);
      if (statuses === undefined) never.push(key);
      else if (!statuses.some((s) => s < 300)) unsuccessful.push(key);
    }
  }
  expect(never).toEqual([]);
  // Detail routes of tables this OVN holds no row of (a chassis switch's IPFIX, the NB's BFD, ...).
  const emptyTable = /^GET \/api\/v1\/(clusters\/\{cluster\}\/)?(nb|sb)\/[a-z-]+\/\{uuid\}$/;
  expect(unsuccessful.filter((key) => !emptyTable.test(key))).toEqual([]);
  expect(answered.size).toBeGreaterThan(300);
});
