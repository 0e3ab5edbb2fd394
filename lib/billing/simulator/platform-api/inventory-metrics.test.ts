import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { parsePeriod } from "../../../foundation/time/period.ts";
import { flavorNamed } from "../catalog.ts";
import { generateMonth } from "../generate-month.ts";
import { monthStream } from "../month-stream.ts";
import { buildOracle } from "../oracle.ts";
import { inventoryExposition } from "./inventory-metrics.ts";
import { type PlatformApiServer, startPlatformApi } from "./platform-api.ts";
import { PlatformView } from "./platform-view.ts";

const period = parsePeriod("2026-10");
const month = generateMonth({ seed: 3, period, cloud: "cloud-1", scale: { tenants: 4 } });
const oracle = buildOracle(month, [], monthStream(month, []).marks);
const at = Date.parse("2026-10-17T12:00:00Z");

interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

function samples(text: string): Sample[] {
  return text
    .split("\n")
    .filter((l) => l !== "" && !l.startsWith("#"))
    .map((line) => {
      const match = /^([a-z_]+)(?:\{(.*)\})? (\S+)$/.exec(line);
      if (match === null) throw new Error(`not a sample: ${line}`);
      const labels = Object.fromEntries(
        [...(match[2] ?? "").matchAll(/([a-z_]+)="((?:[^"\\]|\\.)*)"/g)].map((m) => [m[1], m[2]]),
      );
      return { name: match[1] ?? "", labels, value: Number(match[3]) };
    });
}

function liveAt(type: string) {
  return oracle.resources.flatMap((r) => {
    if (r.resource_type !== type) return [];
    const i = r.intervals.find((iv) => Date.parse(iv.from) <= at && at < Date.parse(iv.to));
    return i === undefined ? [] : [{ id: r.resource_id, ...i }];
  });
}

describe("the inventory exposition", () => {
  const text = inventoryExposition(new PlatformView(month), at);
  const all = samples(text);
  const named = (name: string) => all.filter((s) => s.name === name);

  test("one gauge per live resource, id, uuid and name all the id", () => {
    const servers = named("platform_a_nova_server_status");
    expect(servers.map((s) => s.labels.id).sort()).toEqual(
      liveAt("instance")
        .map((r) => r.id)
        .sort(),
    );
    for (const s of servers) {
      expect(s.labels.uuid).toBe(s.labels.id as string);
      expect(s.labels.name).toBe(s.labels.id as string);
      expect(Object.keys(s.labels)).toEqual(["id", "uuid", "name", "tenant_id", "status", "flavor_id"]);
    }
    const volumes = named("platform_a_cinder_volume_gb");
    expect(volumes.map((v) => [v.labels.id, v.value]).sort()).toEqual(
      liveAt("volume")
        .map((v) => [v.id, Number(v.size.size_gb)])
        .sort(),
    );
    expect(named("platform_a_cinder_volume_status")[0]?.labels.volume_type).toMatch(/^(ssd|hdd|standard)$/);
    expect(named("platform_a_neutron_floating_ip")).toHaveLength(liveAt("floating_ip").length);
    expect(named("platform_a_glance_image_bytes")).toHaveLength(liveAt("image").length);
    expect(named("platform_a_loadbalancer_loadbalancer_status")).toHaveLength(liveAt("loadbalancer").length);
  });

  test("limits and usage per tenant, and the cloud's totals", () => {
    const instances = liveAt("instance");
    for (const tenant of month.tenants) {
      const mine = instances.filter((i) => i.project_id === tenant.project_id);
      const running = mine.filter((i) => i.state !== "shelved_offloaded");
      const value = (name: string) =>
        named(name).find((s) => s.labels.tenant_id === tenant.project_id)?.value;
      expect(value("platform_a_nova_limits_instances_used")).toBe(mine.length);
      expect(value("platform_a_nova_limits_vcpus_used")).toBe(
        running.reduce((n, i) => n + Number(i.size.vcpus), 0),
      );
      expect(value("platform_a_nova_limits_memory_used")).toBe(
        running.reduce((n, i) => n + flavorNamed(String(i.size.flavor)).memory_mb, 0),
      );
      expect(value("platform_a_nova_limits_instances_max")).toBe(100);
      expect(value("platform_a_nova_limits_vcpus_max")).toBe(400);
      expect(value("platform_a_nova_limits_memory_max")).toBe(819200);
    }
    expect(named("platform_a_identity_projects")[0]?.value).toBe(month.tenants.length);
    expect(named("platform_a_identity_project_info")[0]?.labels).toMatchObject({
      domain_id: "default",
      enabled: "true",
    });
    expect(named("platform_a_nova_total_vms")[0]?.value).toBe(instances.length);
    expect(named("platform_a_cinder_volumes")[0]?.value).toBe(liveAt("volume").length);
    expect(named("platform_a_neutron_floating_ips")[0]?.value).toBe(liveAt("floating_ip").length);
    expect(named("platform_a_glance_images")[0]?.value).toBe(liveAt("image").length);
    expect(named("platform_a_loadbalancer_total_loadbalancers")[0]?.value).toBe(
      liveAt("loadbalancer").length,
    );
  });

  test("passes promtool check metrics when the machine has it, but for the unit in the spec's volume_gb name", () => {
    const promtool = Bun.which("promtool");
    if (promtool === null) return;
    const check = (exposition: string) => {
      const run = Bun.spawnSync([promtool, "check", "metrics"], {
        stdin: new TextEncoder().encode(exposition),
      });
      return { code: run.exitCode, said: `${run.stdout.toString()}${run.stderr.toString()}` };
    };
    // Exit 3 is lint only: the exposition parses, and the one complaint is a name the exporters fix (docs/simulator.md#inventory-endpoint).
    expect(check(text)).toEqual({
      code: 3,
      said: "platform_a_cinder_volume_gb metric names should not contain abbreviated units\n",
    });
    const others = text
      .split("\n")
      .filter((l) => !l.includes("platform_a_cinder_volume_gb"))
      .join("\n");
    expect(check(others)).toEqual({ code: 0, said: "" });
  });
});

describe("GET /metrics", () => {
  let on: PlatformApiServer;
  let off: PlatformApiServer;

  beforeAll(async () => {
    [on, off] = await Promise.all([
      startPlatformApi({ month }),
      startPlatformApi({ month, metricsEnabled: false }),
    ]);
  });

  afterAll(async () => {
    await Promise.all([on.stop(), off.stop()]);
  });

  test("serves the inventory at the clock without a token; switched off it is an unknown path", async () => {
    on.at(at);
    const response = await fetch(`${on.url}/metrics`);
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toContain("text/plain");
    expect(await response.text()).toBe(inventoryExposition(new PlatformView(month), at));
    expect((await fetch(`${off.url}/metrics`)).status).toBe(404);
  });
});
