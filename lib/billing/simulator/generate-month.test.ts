import { expect, setDefaultTimeout, test } from "bun:test";
import fc from "fast-check";
import { parsePeriod } from "../../foundation/time/period.ts";
import { flavorNamed, projectLimits, volumeTypes } from "./catalog.ts";
import { generateMonth, generateTenants } from "./generate-month.ts";
import type { Month } from "./month.ts";

// Whole months are generated here; a busy shared machine can take seconds per test.
setDefaultTimeout(30_000);

const period = parsePeriod("2026-02");
const from = Date.parse(period.from);
const to = Date.parse(period.to);
const gen = (seed: number, tenants = 3): Month =>
  generateMonth({ seed, period, cloud: "c", scale: { tenants } });

test("one seed, period and cloud give one month; another seed another", () => {
  expect(JSON.stringify(gen(7))).toBe(JSON.stringify(gen(7)));
  expect(JSON.stringify(gen(8))).not.toBe(JSON.stringify(gen(7)));
});

test("tenants: the classic ones asked for and the infrastructure tenants of alpha and beta", () => {
  const m = gen(1, 5);
  expect(m.tenants.filter((t) => t.kind === "classic")).toHaveLength(5);
  expect(m.tenants.filter((t) => t.kind === "infrastructure").map((t) => t.cluster_manager)).toEqual([
    "alpha",
    "beta",
  ]);
  expect(generateTenants({ seed: 1, period, cloud: "c", scale: { tenants: 5 } })).toEqual(m.tenants);
});

test("the default scale gives a month of a few hundred resources with every workload", () => {
  const m = generateMonth({ seed: 1, period, cloud: "c", scale: { tenants: 10 } });
  expect(m.resources.length).toBeGreaterThan(150);
  expect(m.resources.length).toBeLessThan(800);
  const workloads = new Set(m.resources.map((r) => r.workload));
  for (const w of [
    "steady",
    "short-lived",
    "resizing",
    "shelving",
    "power-cycling",
    "cluster-node",
    "cluster-autoscale",
    "cluster-ingress",
  ]) {
    expect(workloads.has(w)).toBe(true);
  }
  const types = new Set(m.resources.map((r) => r.resource_type));
  expect([...types].sort()).toEqual(["floating_ip", "image", "instance", "loadbalancer", "volume"]);
});

test("properties of every month: order, instants, volume types, project limits", () => {
  fc.assert(
    fc.property(fc.integer({ min: 0, max: 1_000_000 }), (seed) => {
      const m = gen(seed, 2);
      const keys = m.resources.map((r) => `${r.resource_type}/${r.resource_id}`);
      expect(keys).toEqual([...keys].sort());
      const typeIds = new Set(volumeTypes.map((t) => t.id));
      const live = new Map<string, { at: number; delta: number; vcpus: number; mb: number }[]>();
      for (const r of m.resources) {
        const first = r.steps.find((s) => s.billable);
        expect(first?.truth).not.toBeNull();
        for (let i = 1; i < r.steps.length; i++)
          expect(r.steps[i]?.at).toBeGreaterThan(r.steps[i - 1]?.at ?? 0);
        for (const s of r.steps) {
          expect(s.at).toBeLessThan(to);
          if (!r.pre_existing) expect(s.at).toBeGreaterThan(from);
        }
        if (r.resource_type === "volume") {
          for (const s of r.steps) if (s.truth) expect(typeIds.has(String(s.truth.size.type))).toBe(true);
        }
        if (r.resource_type === "instance") {
          const project = first?.truth?.project_id ?? "";
          const list = live.get(project) ?? [];
          let prev: { vcpus: number; mb: number } | null = null;
          for (const s of r.steps.filter((x) => x.billable)) {
            const flavor = s.truth ? flavorNamed(String(s.truth.size.flavor)) : null;
            const now = flavor ? { vcpus: flavor.vcpus, mb: flavor.memory_mb } : { vcpus: 0, mb: 0 };
            list.push({
              at: s.at,
              delta: prev === null ? 1 : flavor ? 0 : -1,
              vcpus: now.vcpus - (prev?.vcpus ?? 0),
              mb: now.mb - (prev?.mb ?? 0),
            });
            prev = now;
          }
          live.set(project, list);
        }
      }
      for (const changes of live.values()) {
        let count = 0;
        let vcpus = 0;
        let mb = 0;
        for (const c of changes.sort((a, b) => a.at - b.at)) {
          count += c.delta;
          vcpus += c.vcpus;
          mb += c.mb;
          expect(count).toBeLessThanOrEqual(projectLimits.instances);
          expect(vcpus).toBeLessThanOrEqual(projectLimits.vcpus);
          expect(mb).toBeLessThanOrEqual(projectLimits.memory_mb);
        }
      }
    }),
    { numRuns: 15 },
  );
});

test("a step that books nothing never changes the truth", () => {
  for (const r of gen(3).resources) {
    let truth = null as string | null;
    for (const s of r.steps) {
      if (s.billable) truth = JSON.stringify(s.truth);
      else if (truth !== null && s.truth !== null) expect(JSON.stringify(s.truth)).toBe(truth);
    }
  }
});
