import { decimal } from "../../foundation/money/decimal.ts";
import type { ResourceKey } from "../metering/meter-resource.ts";
import type { LineFigures } from "./line-delta.ts";

/** A rated line that stands, its figures as stored (decimal text): parsed when its resource is diffed. */
export interface StandingLine {
  project_id: string;
  dimension: string;
  quantity: string;
  unit_price: string;
  amount: string;
}

const keyOf = (r: ResourceKey) =>
  `${r.cloud}\u0000${r.platform}\u0000${r.resource_type}\u0000${r.resource_id}`;

const figures = (l: StandingLine): LineFigures => ({
  project_id: l.project_id,
  dimension: l.dimension,
  quantity: decimal(l.quantity),
  unit_price: decimal(l.unit_price),
  amount: decimal(l.amount),
});

/**
 * The rated lines that stand before a correction (decision 424), by resource, held in memory for the
 * whole correction so that the diff reads nothing (pure). A correction takes each resource's lines as
 * it meters it; what is left at the end belongs to resources the month no longer meters, which it
 * credits whole.
 */
export class StandingLines {
  readonly #byResource = new Map<string, { resource: ResourceKey; lines: StandingLine[] }>();

  add(resource: ResourceKey, line: StandingLine): void {
    const key = keyOf(resource);
    const held = this.#byResource.get(key);
    if (held === undefined) {
      const { cloud, platform, resource_type, resource_id } = resource;
      this.#byResource.set(key, { resource: { cloud, platform, resource_type, resource_id }, lines: [line] });
    } else held.lines.push(line);
  }

  /** A resource's standing lines, taken: none when it had none or they were taken already. */
  take(resource: ResourceKey): LineFigures[] {
    const key = keyOf(resource);
    const held = this.#byResource.get(key);
    if (held === undefined) return [];
    this.#byResource.delete(key);
    return held.lines.map(figures);
  }

  /** Every resource not taken, with its lines, taking them. */
  takeRest(): { resource: ResourceKey; lines: LineFigures[] }[] {
    const rest = [...this.#byResource.values()].map((r) => ({
      resource: r.resource,
      lines: r.lines.map(figures),
    }));
    this.#byResource.clear();
    return rest;
  }
}
