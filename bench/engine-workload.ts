/**
 * A synthetic month for the engine bench: about `events` events over resources of every priced type,
 * in `projects` projects (a fixed seed, so every run is the same month). Instances carry nova's daily
 * audits, as the real platform's do, which is where most events of a month come from. Rows are
 * produced lazily, in COPY's CSV form, so a million events never sit in memory at once.
 */
interface WorkloadShape {
  events: number;
  period: { from: string; to: string };
  projects: number;
  cloud: string;
}

const hour = 3_600_000;
const day = 24 * hour;

/** A tiny seeded generator (mulberry32): the bench must not depend on the simulator's internals. */
function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const csv = (v: string) => `"${v.replaceAll('"', '""')}"`;
const provider = {
  publisher_id: "compute.bench-host-01",
  host: "compute-07",
  availability_zone: "nova",
  image_ref: "0b8a7e52-3f1c-4d2a-9e6b-7c4d1f0a5e90",
  request_id: "req-7d7e1b4c-53a5-4a8c-9b0e-1f6f2b9d2c44",
};

interface Workload {
  /** CSV lines for `copy events (…) from stdin with (format csv)`, in chunks. */
  chunks(): Generator<string>;
  counts(): { events: number; resources: number };
  projectIds: string[];
}

export function engineWorkload(shape: WorkloadShape): Workload {
  const from = Date.parse(shape.period.from);
  const to = Date.parse(shape.period.to);
  const projectIds = Array.from(
    { length: shape.projects },
    (_, i) => `bench-project-${String(i).padStart(5, "0")}`,
  );
  let events = 0;
  let resources = 0;
  function* chunks(): Generator<string> {
    const rnd = random(7);
    const pick = <T>(xs: readonly T[]) => xs[Math.floor(rnd() * xs.length)] as T;
    let lines: string[] = [];
    let seq = 0;
    const emit = (
      type: string,
      id: string,
      project: string,
      at: number,
      eventType: string,
      payload: object,
    ) => {
      seq += 1;
      events += 1;
      lines.push(
        [
          `bench-${seq}`,
          new Date(at).toISOString(),
          eventType,
          "platform_a",
          shape.cloud,
          type,
          id,
          project,
          "collector",
          JSON.stringify({ ...payload, provider }),
        ]
          .map(csv)
          .join(","),
      );
    };
    while (events < shape.events) {
      resources += 1;
      const id = `r-${String(resources).padStart(8, "0")}`;
      const project = pick(projectIds);
      const kind = rnd();
      const start = rnd() < 0.3 ? from - Math.floor(rnd() * 30 * day) : from + Math.floor(rnd() * 25 * day);
      const end = rnd() < 0.3 ? start + Math.floor(rnd() * 10 * day) + hour : null;
      if (kind < 0.5) {
        const size = pick([
          { vcpus: 1, ram_gb: 2, disk_gb: 20, flavor: "m1.small" },
          { vcpus: 4, ram_gb: 8, disk_gb: 80, flavor: "m1.large" },
        ]);
        emit("instance", id, project, start, "compute.instance.create.end", { state: "active", size });
        const off = start + Math.floor(rnd() * 5 * day) + hour;
        if (end === null || off < end) {
          emit("instance", id, project, off, "compute.instance.power_off.end", { state: "shutoff" });
          emit("instance", id, project, off + 6 * hour, "compute.instance.power_on.end", { state: "active" });
        }
        for (let midnight = from; midnight < to; midnight += day) {
          const at = midnight + 10 * 60_000;
          if (at > start && (end === null || at < end)) {
            emit("instance", id, project, at, "compute.instance.exists", { state: "active", size });
          }
        }
        if (end !== null && end < to) emit("instance", id, project, end, "compute.instance.delete.end", {});
      } else if (kind < 0.8) {
        emit("volume", id, project, start, "volume.create.end", {
          state: "available",
          size: { size_gb: 50, type: "ssd" },
        });
        emit("volume", id, project, start + 60_000, "volume.attach.end", { state: "in-use" });
        if (rnd() < 0.3)
          emit("volume", id, project, start + day, "volume.resize.end", {
            state: "in-use",
            size: { size_gb: 100, type: "ssd" },
          });
        if (end !== null && end < to) emit("volume", id, project, end, "volume.delete.end", {});
      } else if (kind < 0.9) {
        emit("floating_ip", id, project, start, "floatingip.create.end", {
          state: "active",
          size: { ip_version: 4 },
        });
        if (end !== null && end < to) emit("floating_ip", id, project, end, "floatingip.delete.end", {});
      } else if (kind < 0.95) {
        emit("image", id, project, start, "image.create", { state: "queued", size: { size_gb: 0 } });
        emit("image", id, project, start + 60_000, "image.activate", {
          state: "active",
          size: { size_gb: 2.5 },
        });
      } else {
        emit("loadbalancer", id, project, start, "octavia.loadbalancer.create.end", {
          state: "active",
          size: { listeners: 2, pools: 2 },
        });
        if (end !== null && end < to)
          emit("loadbalancer", id, project, end, "octavia.loadbalancer.delete.end", {});
      }
      if (lines.length >= 20_000) {
        yield `${lines.join("\n")}\n`;
        lines = [];
      }
    }
    if (lines.length > 0) yield `${lines.join("\n")}\n`;
  }
  return { chunks, counts: () => ({ events, resources }), projectIds };
}
