// The app before any database answers, and without the opt-in switch routes: no OVN needed.
import { afterAll, expect, test } from "bun:test";
import { Writable } from "node:stream";
import { createLogger } from "../../foundation/log/logger.ts";
import { createRegistry } from "../../foundation/metrics/registry.ts";
import { buildClusters } from "./build-clusters.ts";
import { netviewApp } from "./netview-app.ts";
import { parseNetviewOptions } from "./netview-options.ts";

// Port 9 (discard) on loopback: nothing listens, every connect is refused.
const options = parseNetviewOptions(["--ovnnb-db=tcp:127.0.0.1:9", "--ovnsb-db=tcp:127.0.0.1:9"], () => "");
const clusters = buildClusters(options, undefined, { initialMs: 1000, maxMs: 1000 });
const app = netviewApp({
  clusters,
  settings: { writeEnabled: true, wsAllowedOrigins: [], chassisStaleThresholdMs: 1000 },
  logger: createLogger({
    service: "t",
    level: "ERROR",
    destination: new Writable({ write: (_c, _e, d) => d() }),
  }),
  registry: createRegistry(),
  metricsEnabled: false,
});
clusters.start();
afterAll(() => clusters.stop());

const get = (path: string) => app.handle(new Request(`http://localhost${path}`));

test("before the first sync: not ready, tables 503 and stale, switch routes absent", async () => {
  expect((await get("/healthz")).status).toBe(200);
  const ready = await get("/readyz");
  expect(ready.status).toBe(503);
  expect(await ready.json()).toEqual({ error: "cluster default: initial sync not done" });
  const list = await get("/api/v1/nb/logical-switches");
  expect(list.status).toBe(503);
  expect(list.headers.get("x-netview-stale")).toBe("true");
  expect(await list.json()).toEqual({ error: "northbound database not synced yet" });
  expect((await get("/api/v1/ovs")).status).toBe(404);
  expect((await get("/metrics")).status).toBe(404);
  const caps = (await (await get("/api/v1/capabilities")).json()) as { capabilities: string[]; mode: string };
  expect(caps.mode).toBe("read-write");
  expect(caps.capabilities).not.toContain("ovs");
  const spec = (await (await get("/api/v1/openapi.json")).json()) as { paths: Record<string, unknown> };
  expect(Object.keys(spec.paths).some((p) => p.includes("/ovs"))).toBe(false);
  const cluster = (
    (await (await get("/api/v1/clusters")).json()) as { nb: { last_error: string | null } }[]
  )[0];
  expect(cluster?.nb.last_error).not.toBeNull();
  expect(((await (await get("/api/v1/clusters/default")).json()) as { name: string }).name).toBe("default");
  expect(await (await get("/api/v1/clusters/nope")).json()).toEqual({ error: 'unknown cluster "nope"' });
});

test("a snapshot session's suspension: /readyz 503 and the stale header", async () => {
  const cluster = clusters.defaultCluster;
  cluster.suspended = true;
  try {
    const ready = await get("/readyz");
    expect(ready.status).toBe(503);
    expect(await ready.json()).toEqual({ error: "cluster default: monitors suspended" });
    expect((await get("/api/v1/sb/chassis-inventory")).headers.get("x-netview-stale")).toBe("true");
  } finally {
    cluster.suspended = false;
  }
});
