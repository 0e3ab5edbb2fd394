import { ConflictError } from "../../foundation/errors/svc-error.ts";
import { instantFromMs } from "../../foundation/time/instant.ts";
import type { VirtualClock } from "./virtual-clock.ts";

/** `/clock` (docs/simulator.md#control-endpoint): every member always present. */
export interface ClockDocument {
  virtual_now: string;
  factor: number;
  published: number;
  total: number;
  held: number;
  holding: boolean;
  period_from: string;
  period_to: string;
}

type PublicationPhase = "publishing" | "holding" | "released" | "done";

/**
 * The state of one `run` or `replay` on the bus, as `/clock` and `/release` see it (docs/simulator.md#control-endpoint):
 * `total` counts every line of the run (the held share included), `held` the held share not yet
 * released, `published` the lines the broker confirmed; once the regular lines are out, `published`
 * equals `total` minus `held` (decision 234).
 */
export class Publication {
  published = 0;
  held: number;
  private current: PublicationPhase = "publishing";
  private releaseRequested: (() => void) | null = null;
  /** Resolves when `POST /release` is accepted. */
  readonly released: Promise<void>;

  constructor(
    readonly clock: VirtualClock,
    private readonly options: {
      periodFrom: string;
      periodTo: string;
      total: number;
      held: number;
      /** The run has the held-back switch on (a replay never has). */
      holdsBack: boolean;
    },
  ) {
    this.held = options.held;
    this.released = new Promise((resolve) => {
      this.releaseRequested = resolve;
    });
  }

  get phase(): PublicationPhase {
    return this.current;
  }

  get total(): number {
    return this.options.total;
  }

  /** Every regular line is confirmed: a run with held-back starts holding, any other is done. */
  regularLinesDone(): void {
    this.current = this.options.holdsBack ? "holding" : "done";
  }

  /** The held share is confirmed too. */
  heldLinesDone(): void {
    this.current = "done";
  }

  document(): ClockDocument {
    return {
      virtual_now: instantFromMs(Math.floor(this.clock.now())),
      factor: this.clock.factor,
      published: this.published,
      total: this.options.total,
      held: this.held,
      holding: this.current === "holding",
      period_from: this.options.periodFrom,
      period_to: this.options.periodTo,
    };
  }

  /**
   * `POST /release`: answers the document as it stood before and lets the held share go; refused with
   * 409 for a run without held-back, while still publishing, and after the first release.
   */
  release(): ClockDocument {
    if (!this.options.holdsBack) {
      throw new ConflictError("this run holds nothing back: it runs without the held-back switch");
    }
    if (this.current === "publishing") {
      throw new ConflictError("the run is still publishing: release once /clock reports holding true");
    }
    if (this.current !== "holding") throw new ConflictError("the held share was already released");
    const before = this.document();
    this.current = "released";
    this.held = 0;
    this.releaseRequested?.();
    return before;
  }
}
