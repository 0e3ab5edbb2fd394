// Issue 28's fuzz test for netview: 6,000 seeded requests over every operation of the served OpenAPI
// document (harness/netview/request-fuzz.ts builds each from what the document says the route takes:
// path, query and body, real values beside values past their bounds and text a server must refuse),
// sent with the write token so that they reach validation. Not one answer is a 5xx or carries the
// stale header, every answer is one its operation declares, netview's NB and SB sessions never
// reconnect, and the northbound database holds what it held before (nothing here applies a plan).
import { expect, test } from "bun:test";
import fc from "fast-check";
import { startFullFixture } from "../../../harness/netview/full-fixture.ts";
import { type FuzzRequest, fuzzOperations, fuzzRequests } from "../../../harness/netview/request-fuzz.ts";
import { fixtureForFile, nbDump } from "../../../harness/netview/test-support.ts";
import type { DatabaseSchema } from "../ovsdb/schema.ts";

const requests = 6000;
const seed = 28_0008;

const fx = fixtureForFile(startFullFixture);

const uuids = (path: string) =>
  fx()
    .send("GET", path)
    .then((a) => (a.body as { _uuid: string }[]).map((r) => r._uuid));

test(`${requests} requests from the OpenAPI document: no 5xx, no stale answer, no reconnect, the NB unchanged`, async () => {
  const nb = fx().clusters.defaultCluster.nb.cache.schema as DatabaseSchema;
  const snapshot = String(
    ((await fx().send("POST", "/api/v1/snapshots", { body: {} })).body as { id: string }).id,
  );
  const trace = String(
    ((await fx().send("GET", "/api/v1/debug/trace?inport=dbg-p0&ip_dst=10.0.0.12")).body as { id: string })
      .id,
  );
  const chassis = fx().ovn.chassis.map((c) => c.systemId);
  const rows = [
    ...(await uuids("/api/v1/nb/logical-switches")),
    ...(await uuids("/api/v1/nb/logical-switch-ports")),
    ...(await uuids("/api/v1/nb/acls")),
    ...(await uuids("/api/v1/sb/port-bindings")),
    ...(await uuids("/api/v1/sb/chassis")),
  ];
  const names = [
    "dbg-sw0",
    "dbg-p0",
    "dbg-lr0",
    "dbg-lrp-pub",
    "dbg_pg_web",
    "dbg_as_clients",
    ...chassis,
    snapshot,
  ];
  const pools = {
    params: {
      cluster: ["default"],
      uuid: rows,
      id: [snapshot, trace, "1"],
      name: [...chassis, "ports_unbound", "chassis_down"],
      chassis,
      table: ["interface", "bridge", "logical-switches", "acls", "port-bindings"],
      db: ["nb", "sb"],
    },
    names,
    nb,
  };
  const operations = fuzzOperations(fx().document);
  const sample = fc.sample(fuzzRequests(operations, pools), { seed, numRuns: requests });
  const before = { dump: await nbDump(fx().ovn, ["NB_Global"]), syncs: fx().syncs() };
  const failures: string[] = [];
  const statuses = new Map<number, number>();
  const seen = new Set<string>();
  const started = performance.now();
  for (const request of sample) {
    // Loading a snapshot suspends the monitors on purpose (and marks answers stale): not a fault.
    const sent: FuzzRequest =
      request.template === "/api/v1/snapshots/{id}/load"
        ? { ...request, path: "/api/v1/snapshots/x/load" }
        : request;
    const body =
      sent.body === undefined ? {} : "raw" in sent.body ? { raw: sent.body.raw } : { body: sent.body.json };
    const answer = await fx().send(sent.method, sent.path, body);
    statuses.set(answer.status, (statuses.get(answer.status) ?? 0) + 1);
    seen.add(`${sent.method} ${sent.template}`);
    const problems = [
      ...(answer.status >= 500 ? [`${answer.status} ${answer.text.slice(0, 300)}`] : []),
      ...(answer.headers.get("x-netview-stale") === null ? [] : ["the answer is stale"]),
      ...fx().contract.problems(
        { method: sent.method, path: sent.path },
        answer.status,
        answer.headers.get("content-type"),
        answer.body,
      ),
    ];
    if (problems.length > 0 && failures.length < 20)
      failures.push(
        `${sent.method} ${sent.path.slice(0, 300)} ${JSON.stringify(sent.body)?.slice(0, 300)}: ${problems.join("; ")}`,
      );
  }
  const elapsed = performance.now() - started;
  console.log(
    `netview fuzz: ${sample.length} requests over ${seen.size} operations in ${Math.round(elapsed)} ms; statuses ${JSON.stringify(Object.fromEntries([...statuses].sort(([a], [b]) => a - b)))}`,
  );
  expect(failures).toEqual([]);
  expect(sample.length).toBeGreaterThanOrEqual(5000);
  expect(seen.size).toBe(operations.length);
  const cluster = fx().clusters.defaultCluster;
  expect({ nb: cluster.nb.state, sb: cluster.sb.state, syncs: fx().syncs() }).toEqual({
    nb: "synced",
    sb: "synced",
    syncs: before.syncs,
  });
  expect(await nbDump(fx().ovn, ["NB_Global"])).toBe(before.dump);
}, 600_000);
