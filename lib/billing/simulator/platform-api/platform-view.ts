import type { Month, ResourceType, SimResource, Step, Tenant, Truth } from "../month.ts";

/** A resource as the platform shows it at one instant. */
export interface LiveResource {
  resource: SimResource;
  /** What the resource is at the instant: the truth of its last billable step so far. */
  truth: Truth;
  /** The last billable step so far (a resize awaiting confirmation shows in the server status). */
  last: Step;
  /** Its first billable step: the creation. */
  created: Step;
  /** The last step of any kind so far (`updated` members). */
  updatedAt: number;
}

/** A resource whose delete lies in a window, with the truth it had just before. */
interface DeletedResource {
  resource: SimResource;
  truth: Truth;
  created: Step;
  deletedAt: number;
}

interface Indexed {
  resource: SimResource;
  /** Billable steps in time order. */
  booked: Step[];
  /** Instants of the billable steps, in order. */
  instants: number[];
  /** Instants of every step, in order. */
  stepInstants: number[];
}

/** Index of the last element of `sorted` at or before `at`, or -1. */
function lastAtOrBefore(sorted: readonly number[], at: number): number {
  let lo = 0;
  let hi = sorted.length - 1;
  let found = -1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    if ((sorted[mid] as number) <= at) {
      found = mid;
      lo = mid + 1;
    } else hi = mid - 1;
  }
  return found;
}

/**
 * The platform's inventory at any instant of a generated month, read from the generator's own truth
 * (the steps, never the notifications), so a listing agrees with the oracle at every instant inside
 * the month. Pure: the fake platform API and the inventory endpoint ask it at the virtual clock.
 */
export class PlatformView {
  private readonly byType = new Map<ResourceType, Indexed[]>();
  readonly tenants: readonly Tenant[];
  readonly periodFrom: number;
  readonly periodTo: number;

  constructor(readonly month: Month) {
    this.tenants = month.tenants;
    this.periodFrom = Date.parse(month.period.from);
    this.periodTo = Date.parse(month.period.to);
    for (const resource of month.resources) {
      const booked = resource.steps.filter((s) => s.billable);
      if (booked.length === 0) continue;
      const list = this.byType.get(resource.resource_type) ?? [];
      list.push({
        resource,
        booked,
        instants: booked.map((s) => s.at),
        stepInstants: resource.steps.map((s) => s.at),
      });
      this.byType.set(resource.resource_type, list);
    }
  }

  /** The instant a document is answered at: the virtual clock, clamped to the end of the month. */
  clamp(virtualNow: number): number {
    return Math.min(Math.floor(virtualNow), this.periodTo);
  }

  /** Resources of `type` alive at `at`, ordered by id. */
  live(type: ResourceType, at: number): LiveResource[] {
    const out: LiveResource[] = [];
    for (const { resource, booked, instants, stepInstants } of this.byType.get(type) ?? []) {
      const last = booked[lastAtOrBefore(instants, at)];
      if (last === undefined || last.truth === null) continue;
      const all = lastAtOrBefore(stepInstants, at);
      out.push({
        resource,
        truth: last.truth,
        last,
        created: booked[0] as Step,
        updatedAt: resource.steps[all]?.at ?? last.at,
      });
    }
    return out;
  }

  /** Resources of `type` deleted in [from, to], ordered by id. */
  deleted(type: ResourceType, from: number, to: number): DeletedResource[] {
    const out: DeletedResource[] = [];
    for (const { resource, booked } of this.byType.get(type) ?? []) {
      booked.forEach((step, i) => {
        const before = booked[i - 1];
        if (step.truth !== null || step.at < from || step.at > to || before?.truth == null) return;
        out.push({ resource, truth: before.truth, created: booked[0] as Step, deletedAt: step.at });
      });
    }
    return out;
  }
}
