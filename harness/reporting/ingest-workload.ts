import type { CanonicalEvent } from "../../lib/billing/events/event.ts";
import { compare } from "../../lib/foundation/collections/compare.ts";

/**
 * A realistic ingest workload for the bench and the fault tests: many resources of the platform_a
 * types, each with a create, a few billable changes and sometimes a delete, spread over one month and
 * sent roughly in time order, as collectors send them. Deterministic for a seed.
 */
export type WorkloadEvent = Omit<CanonicalEvent, "source">;

function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const flavors = [
  { flavor: "m1.small", vcpus: 1, ram_gb: 2, disk_gb: 20 },
  { flavor: "m1.medium", vcpus: 2, ram_gb: 4, disk_gb: 40 },
  { flavor: "m1.large", vcpus: 4, ram_gb: 8, disk_gb: 80 },
  { flavor: "m1.xlarge", vcpus: 8, ram_gb: 16, disk_gb: 160 },
];

export function ingestWorkload(total: number, seed = 7): WorkloadEvent[] {
  const random = rng(seed);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(random() * xs.length)] as T;
  const monthStart = Date.UTC(2026, 9, 1);
  const monthMs = 31 * 86_400_000;
  const events: WorkloadEvent[] = [];
  let n = 0;
  while (events.length < total) {
    n++;
    const kind = pick([
      "instance",
      "instance",
      "instance",
      "volume",
      "volume",
      "floating_ip",
      "image",
    ] as const);
    const id = `${kind}-${n.toString(36)}-${Math.floor(random() * 1e9).toString(36)}`;
    const project = `project-${Math.floor(random() * 400)}`;
    let at = monthStart + Math.floor(random() * monthMs * 0.8);
    const push = (event_type: string, payload: WorkloadEvent["payload"]) => {
      events.push({
        event_id: `bench-${events.length}-${id}`,
        timestamp: new Date(at).toISOString(),
        event_type,
        platform: "platform_a",
        cloud: "bench-cloud",
        resource_type: kind,
        resource_id: id,
        project_id: project,
        payload,
      });
      at += Math.floor(random() * 3 * 86_400_000) + 1000;
    };
    const provider = {
      request_id: `req-${Math.floor(random() * 1e12).toString(16)}`,
      host: `compute-${Math.floor(random() * 50)}`,
    };
    if (kind === "instance") {
      let size = pick(flavors);
      push("compute.instance.create.end", { state: "active", size, provider });
      for (let i = Math.floor(random() * 4); i > 0; i--) {
        const r = random();
        if (r < 0.4) push("compute.instance.power_off.end", { state: "shutoff", provider });
        else if (r < 0.7) push("compute.instance.power_on.end", { state: "active", provider });
        else {
          size = pick(flavors);
          push("compute.instance.finish_resize.end", { state: "active", size, provider });
        }
      }
      if (random() < 0.3) push("compute.instance.delete.end", { provider });
    } else if (kind === "volume") {
      let size = { size_gb: 10 * (1 + Math.floor(random() * 20)), type: pick(["ssd", "hdd"]) };
      push("volume.create.end", { state: "available", size, provider });
      for (let i = Math.floor(random() * 3); i > 0; i--) {
        size =
          random() < 0.5 ? { ...size, size_gb: size.size_gb + 10 } : { ...size, type: pick(["ssd", "hdd"]) };
        push(random() < 0.5 ? "volume.resize.end" : "volume.retype", { state: "in-use", size, provider });
      }
      if (random() < 0.3) push("volume.delete.end", { provider });
    } else if (kind === "floating_ip") {
      push("floatingip.create.end", { state: "active", size: { ip_version: 4 }, provider });
      if (random() < 0.4) push("floatingip.delete.end", { provider });
    } else {
      push("image.create", {
        state: "active",
        size: { size_gb: Math.round(random() * 40 * 100) / 100 },
        provider,
      });
      if (random() < 0.2) push("image.delete", { provider });
    }
  }
  events.length = total;
  // Collectors send in near time order: sort by timestamp, then let neighbours swap now and then.
  events.sort((a, b) => compare(a.timestamp, b.timestamp));
  for (let i = 1; i < events.length; i++) {
    if (random() < 0.02) {
      const a = events[i - 1] as WorkloadEvent;
      events[i - 1] = events[i] as WorkloadEvent;
      events[i] = a;
    }
  }
  return events;
}
