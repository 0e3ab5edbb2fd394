import { Prng } from "../../foundation/random/prng.ts";
import type { Period } from "../../foundation/time/period.ts";
import type { ExtraType } from "./extra-types.ts";
import type { SimResource, Step, Truth } from "./month.ts";
import { ResourceBuilder } from "./resource-builder.ts";

const second = 1000;
const minute = 60 * second;
const hour = 60 * minute;

/** A volume's life as its billable steps state it: created, deleted (null: past the month), its truths. */
interface VolumeLife {
  volume: SimResource;
  created: number;
  deleted: number | null;
  booked: Step[];
}

function lifeOf(volume: SimResource): VolumeLife | null {
  const booked = volume.steps.filter((s) => s.billable);
  const first = booked[0];
  if (first === undefined) return null;
  const end = booked.find((s) => s.truth === null);
  return { volume, created: first.at, deleted: end?.at ?? null, booked };
}

/** The volume's truth at `at`: its last billable step at or before it. */
function truthAt(life: VolumeLife, at: number): Truth | null {
  let truth: Truth | null = null;
  for (const step of life.booked) {
    if (step.at > at) break;
    truth = step.truth;
  }
  return truth;
}

/**
 * cinder's copies of the month's volumes (decision 288): snapshots and backups, each a resource with a
 * life of its own, drawn from a stream of their own (`copies:<period>:<cloud>`) so the rest of the
 * month draws as it would without them. A snapshot is taken of a volume while it lives and, as cinder
 * refuses to delete a volume that has snapshots, is deleted before its volume is, or lives on with it;
 * a backup is taken while the volume lives and may outlive it. Each is sized by the volume's GiB and
 * owned by the volume's owner at the instant it is taken; transferred volumes get none (cinder refuses
 * to transfer a volume with snapshots).
 */
export class VolumeCopies {
  private readonly rng: Prng;
  private readonly from: number;
  private readonly to: number;

  constructor(
    input: { seed: number; period: Period; cloud: string },
    private readonly types: readonly ExtraType[],
  ) {
    this.rng = new Prng(input.seed, `copies:${input.period.name}:${input.cloud}`);
    this.from = Date.parse(input.period.from);
    this.to = Date.parse(input.period.to);
  }

  /** The copies of the volumes among `drawn`, in the order drawn. */
  of(drawn: readonly SimResource[]): SimResource[] {
    const out: SimResource[] = [];
    for (const resource of drawn) {
      if (resource.resource_type !== "volume" || resource.workload === "transferred") continue;
      const life = lifeOf(resource);
      if (life === null) continue;
      if (this.types.includes("volume_snapshot") && this.rng.chance(0.3)) {
        const snapshot = this.snapshot(life);
        if (snapshot !== null) out.push(snapshot);
      }
      if (this.types.includes("volume_backup") && this.rng.chance(0.25)) {
        const backup = this.backup(life);
        if (backup !== null) out.push(backup);
      }
    }
    return out;
  }

  /** When a copy of the volume may be taken: inside the month, clear of its create and its delete. */
  private window(life: VolumeLife): { lo: number; hi: number } | null {
    const lo = Math.max(life.created, this.from) + 10 * minute;
    const hi = (life.deleted ?? this.to) - 3 * hour;
    return hi - lo > hour ? { lo, hi } : null;
  }

  /**
   * A copy of the volume, created at an instant drawn in its window after the `.start` half `leadMs`
   * before: its builder and that instant, or null when the volume lives too briefly in the month.
   */
  private created(
    life: VolumeLife,
    kind: { type: ExtraType; prefix: string; workload: string; event: string; leadMs: [number, number] },
  ): { b: ResourceBuilder; at: number } | null {
    const rng = this.rng;
    const window = this.window(life);
    if (window === null) return null;
    const id = rng.uuid();
    const b = new ResourceBuilder(rng, kind.type, id, kind.workload, false, {
      name: `${kind.prefix}-${id.slice(0, 8)}`,
      user_id: String(life.volume.attributes.user_id),
      volume_id: life.volume.resource_id,
    });
    const at = rng.int(window.lo, window.hi - hour);
    const volume = truthAt(life, at);
    if (volume === null) return null;
    b.noise(at - rng.int(kind.leadMs[0], kind.leadMs[1]), `${kind.event}.create.start`);
    // Available, the volume's GiB, the volume's owner, as it stands when the copy is taken.
    b.book(at, `${kind.event}.create.end`, {
      state: "available",
      size: { size_gb: Number(volume.size.size_gb) },
      project_id: volume.project_id,
    });
    return { b, at };
  }

  /** Its delete at `at`, after the `.start` half a few seconds before. */
  private deleted(b: ResourceBuilder, event: string, at: number): void {
    b.noise(at - this.rng.int(2 * second, 20 * second), `${event}.delete.start`);
    b.book(at, `${event}.delete.end`, null);
  }

  private snapshot(life: VolumeLife): SimResource | null {
    const made = this.created(life, {
      type: "volume_snapshot",
      prefix: "snap",
      workload: "snapshot",
      event: "snapshot",
      leadMs: [2 * second, 20 * second],
    });
    if (made === null) return null;
    const { b, at } = made;
    let deleted: number | null = null;
    if (life.deleted !== null) deleted = life.deleted - this.rng.int(minute, 5 * minute);
    else if (this.rng.chance(0.4) && this.to - hour - (at + hour) > hour) {
      deleted = this.rng.int(at + hour, this.to - hour);
    }
    if (deleted !== null) this.deleted(b, "snapshot", deleted);
    return b.build();
  }

  private backup(life: VolumeLife): SimResource | null {
    const made = this.created(life, {
      type: "volume_backup",
      prefix: "backup",
      workload: "backup",
      event: "backup",
      leadMs: [30 * second, 5 * minute],
    });
    if (made === null) return null;
    const { b, at } = made;
    if (this.rng.chance(0.35) && this.to - hour - (at + hour) > hour) {
      this.deleted(b, "backup", this.rng.int(at + hour, this.to - hour));
    }
    return b.build();
  }
}
