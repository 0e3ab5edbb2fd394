import type { Prng } from "../../foundation/random/prng.ts";
import type { ResourceAttributes, ResourceType, SimResource, Step, Truth } from "./month.ts";

/**
 * Collects the steps of one resource while a workload schedules them. Steps may be added out of order
 * (audits are woven in afterwards); `build` sorts them and makes instants strictly increasing, so no
 * two facts of one resource share a millisecond and every fold orders them alike.
 */
export class ResourceBuilder {
  private readonly steps: Step[] = [];

  constructor(
    private readonly rng: Prng,
    readonly resource_type: ResourceType,
    readonly resource_id: string,
    readonly workload: string,
    readonly pre_existing: boolean,
    readonly attributes: ResourceAttributes,
  ) {}

  /** A billable step; `truth` null books the delete. */
  book(at: number, eventType: string, truth: Truth | null): void {
    this.push(at, eventType, true, truth);
  }

  /** A step the services send that books nothing; it carries the truth of its instant. */
  noise(at: number, eventType: string): void {
    this.push(at, eventType, false, null);
  }

  private push(at: number, eventType: string, billable: boolean, truth: Truth | null): void {
    this.steps.push({
      at: Math.floor(at),
      micros: this.rng.int(0, 999),
      event_type: eventType,
      billable,
      truth,
      message_id: this.rng.uuid(),
      request_id: `req-${this.rng.uuid()}`,
    });
  }

  /** Truth in force at `at` from the billable steps added so far; null before the create or after a delete. */
  truthAt(at: number): Truth | null {
    // The latest billable step at or before `at`; of two at one instant, the one added last (as a
    // stable sort by instant would order them). One pass: audits ask this thirty times per instance.
    let current: Truth | null = null;
    let currentAt = Number.NEGATIVE_INFINITY;
    for (const step of this.steps) {
      if (!step.billable || step.at > at || step.at < currentAt) continue;
      current = step.truth;
      currentAt = step.at;
    }
    return current;
  }

  build(traffic: SimResource["traffic"] = null): SimResource {
    const ordered = this.steps.map((step, index) => ({ step, index }));
    ordered.sort((x, y) => x.step.at - y.step.at || x.index - y.index);
    let last = Number.NEGATIVE_INFINITY;
    let truth: Truth | null = null;
    const steps: Step[] = [];
    for (const { step } of ordered) {
      const at = step.at <= last ? last + 1 : step.at;
      last = at;
      if (step.billable) truth = step.truth;
      // Noise carries the truth of its instant so the renderer can describe the resource as it stands.
      steps.push({ ...step, at, truth: step.billable ? step.truth : truth });
    }
    // A `.start` half before the create describes the resource about to be: take the truth that follows.
    for (let i = steps.length - 2; i >= 0; i--) {
      const step = steps[i];
      const next = steps[i + 1];
      if (step !== undefined && next !== undefined && !step.billable && step.truth === null)
        step.truth = next.truth;
    }
    return {
      resource_type: this.resource_type,
      resource_id: this.resource_id,
      workload: this.workload,
      pre_existing: this.pre_existing,
      attributes: this.attributes,
      steps,
      traffic,
    };
  }
}
