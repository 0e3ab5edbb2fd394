import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadPlatformClouds } from "../../../../../harness/reporting/platform-cloud-files.ts";
import { PlatformFaultProxy } from "../../../../../harness/reporting/platform-fault-proxy.ts";
import {
  inKeyOrder,
  type SeenResource,
  seenResource,
} from "../../../../../harness/reporting/seen-resource.ts";
import { oracleLiveAt } from "../../../../../harness/simulator/oracle-live.ts";
import { parsePeriod } from "../../../../foundation/time/period.ts";
import { volumeTypes } from "../../../simulator/catalog.ts";
import { generateMonth } from "../../../simulator/generate-month.ts";
import { monthStream } from "../../../simulator/month-stream.ts";
import { buildOracle } from "../../../simulator/oracle.ts";
import { type PlatformApiServer, startPlatformApi } from "../../../simulator/platform-api/platform-api.ts";
import type { Observation } from "../../sync/observation.ts";
import { loadClouds } from "../clouds-file.ts";
import { registeredAdapters } from "../registered-adapters.ts";

const period = parsePeriod("2026-10");
const month = generateMonth({
  seed: 11,
  period,
  cloud: "cloud-1",
  scale: { tenants: 6 },
  extraTypes: ["volume_snapshot", "volume_backup"],
});
const oracle = buildOracle(month, [], monthStream(month, []).marks);
let api: PlatformApiServer;
let dir: string;

beforeAll(async () => {
  api = await startPlatformApi({ month });
  dir = mkdtempSync(join(tmpdir(), "svc-platform-a-"));
});
afterAll(async () => {
  await api.stop();
  rmSync(dir, { recursive: true });
});

/** The adapter of a cloud pointing at `url`, loaded as the server loads it. */
function adapterFor(url: string) {
  const cloud = loadPlatformClouds(dir, [{ name: "cloud-1", url }]).get("cloud-1");
  if (cloud === undefined) throw new Error("the cloud did not load");
  return cloud.adapter;
}

const observe = (url: string, at: number) =>
  adapterFor(url).observe({ at: new Date(at).toISOString(), signal: AbortSignal.timeout(30_000) });

const seenOf = (observation: Observation): SeenResource[] =>
  inKeyOrder(observation.resources.map(seenResource));

/** What the oracle (the collector's booking of the month) says is live at `at`. */
function oracleAt(at: number): SeenResource[] {
  return inKeyOrder(
    oracleLiveAt(oracle, at).map(({ resource: r, interval: i }) => seenResource({ ...r, ...i })),
  );
}

describe("the platform_a adapter against the fake platform API", () => {
  test("observes what the collector books, at several instants: state, owner and size of every type", async () => {
    const from = Date.parse(period.from);
    const to = Date.parse(period.to);
    for (let i = 1; i <= 4; i++) {
      const at = from + Math.floor(((to - from) * i) / 5);
      api.at(at);
      const observation = await observe(api.url, at);
      expect({ at, seen: seenOf(observation) }).toEqual({ at, seen: oracleAt(at) });
      expect(observation.resource_types).toEqual([
        "instance",
        "volume",
        "volume_snapshot",
        "volume_backup",
        "floating_ip",
        "image",
        "loadbalancer",
      ]);
    }
  });

  test("deleted servers of the last 24 hours, dated; volume type names; mid-resize deferred", async () => {
    const at = Date.parse("2026-10-20T00:00:00Z");
    api.at(at);
    const observation = await observe(api.url, at);
    const deletes = month.resources.flatMap((r) =>
      r.resource_type !== "instance"
        ? []
        : r.steps
            .filter(
              (s) => s.event_type === "compute.instance.delete.end" && s.at >= at - 86_400_000 && s.at <= at,
            )
            .map((s) => ({ id: r.resource_id, at: new Date(s.at - (s.at % 1000)).toISOString() })),
    );
    expect(deletes.length).toBeGreaterThan(0);
    expect(
      observation.deletions
        .map((d) => ({ id: d.resource_id, at: d.deleted_at }))
        .sort((a, b) => (a.id < b.id ? -1 : 1)),
    ).toEqual(deletes.sort((a, b) => (a.id < b.id ? -1 : 1)));
    expect(observation.size_names).toEqual(
      volumeTypes.map((t) => ({ resource_type: "volume", member: "type", value: t.id, name: t.name })),
    );

    const resizing = month.resources.find((r) =>
      r.steps.some((s) => s.event_type === "compute.instance.finish_resize.end"),
    );
    const finish = resizing?.steps.find((s) => s.event_type === "compute.instance.finish_resize.end");
    if (resizing === undefined || finish === undefined) throw new Error("the month has no resize");
    api.at(finish.at);
    const during = await observe(api.url, finish.at);
    const server = during.resources.find((r) => r.resource_id === resizing.resource_id);
    expect(server).toMatchObject({ in_transition: true, state: "active", size: finish.truth?.size ?? {} });
    expect(during.resources.filter((r) => r.in_transition).length).toBeGreaterThanOrEqual(1);
  });

  test("listeners and pools an operator added are observed as the load balancer's size", async () => {
    const at = Date.parse("2026-10-25T00:00:00Z");
    api.at(at);
    const lb = (await observe(api.url, at)).resources.find((r) => r.resource_type === "loadbalancer");
    if (lb === undefined) throw new Error("no live load balancer");
    expect(lb.size).toEqual({ listeners: 0, pools: 0 });
    api.setLoadBalancerMembers(lb.resource_id, { listeners: 3, pools: 2 });
    const after = (await observe(api.url, at)).resources.find((r) => r.resource_id === lb.resource_id);
    expect(after).toMatchObject({ size: { listeners: 3, pools: 2 }, changed_at: new Date(at).toISOString() });
  });
});

describe("the platform_a adapter's refusals and faults", () => {
  test("options and clouds.yaml entries it cannot use refuse the clouds file, naming the cloud", () => {
    const yaml = join(dir, "refusals-clouds.yaml");
    writeFileSync(
      yaml,
      "clouds:\n  known:\n    auth: {auth_url: http://x/v3, username: u, password: p, project_name: p}\n",
    );
    const config = join(dir, "refusals.yaml");
    writeFileSync(
      config,
      [
        "clouds:",
        "  a: {platform: platform_a, adapter: platform_a, os_cloud: known, region: r1}",
        "  b: {platform: platform_a, adapter: platform_a, os_cloud: missing}",
        "  c: {platform: platform_a, adapter: platform_a, os_cloud: 7}",
        "  known: {platform: platform_a, adapter: platform_a}",
        "",
      ].join("\n"),
    );
    expect(() =>
      loadClouds(config, registeredAdapters({ env: { OS_CLIENT_CONFIG_FILE: yaml }, cwd: dir })),
    ).toThrow(
      `cloud a: the platform_a adapter takes only os_cloud, not region; cloud b: ${yaml} has no cloud entry "missing"; cloud c: os_cloud must name a clouds.yaml entry (a non-empty string)`,
    );
  });

  test("a token refused mid-run is renewed once; refused again, the run fails naming the listing", async () => {
    const at = Date.parse("2026-10-20T00:00:00Z");
    api.at(at);
    let refusals = 1;
    const proxy = PlatformFaultProxy.start(api.url, ({ path }) =>
      path.startsWith("/volume/v3/volumes") && refusals-- > 0 ? { status: 401 } : null,
    );
    try {
      expect(seenOf(await observe(proxy.url, at))).toEqual(oracleAt(at));
      expect(proxy.seen.filter((s) => s.startsWith("POST /v3/auth/tokens")).length).toBe(2);
      refusals = 2;
      await expect(observe(proxy.url, at)).rejects.toThrow(
        `GET ${proxy.url}/volume/v3/volumes/detail answered 401`,
      );
    } finally {
      await proxy.stop();
    }
  });

  test("a platform that goes away mid-run fails the run; a refused password fails it at once", async () => {
    const at = Date.parse("2026-10-20T00:00:00Z");
    const proxy = PlatformFaultProxy.start(api.url, ({ path }) =>
      path.startsWith("/image/") ? "down" : null,
    );
    try {
      await expect(observe(proxy.url, at)).rejects.toThrow(
        // Listings run in parallel: whichever the cut reaches first names itself.
        new RegExp(`^GET ${proxy.url}/\\S+ did not answer$`),
      );
    } finally {
      await proxy.stop();
    }
    const refused = PlatformFaultProxy.start(api.url, ({ path }) =>
      path === "/v3/auth/tokens" ? { status: 401 } : null,
    );
    try {
      await expect(observe(refused.url, at)).rejects.toThrow("refused the credentials (401)");
      expect(refused.seen).toEqual(["POST /v3/auth/tokens"]);
    } finally {
      await refused.stop();
    }
  });
});
