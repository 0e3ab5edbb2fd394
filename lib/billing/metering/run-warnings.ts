/**
 * The seven warning classes of a run (docs/engine.md#warnings) in the order of its warnings line, and the named
 * codes counted beside them. Both land in `runs.stats`.
 */
const warningClasses = [
  "metering",
  "counter",
  "attribution",
  "adjustment",
  "unpriced_resource_types",
  "unreadable_fields",
  "unregistered_projects",
] as const;
type WarningClass = (typeof warningClasses)[number];

/** Named codes and the class each counts in. */
const warningCodes = {
  history_starts_without_create: "metering",
  state_not_priced: "metering",
  counter_store_unreachable: "counter",
  counter_source_missing: "counter",
  attribution_ambiguous: "attribution",
  attribution_cycle: "attribution",
  adjustment_kickback_target_not_partner: "adjustment",
  resource_type_not_priced: "unpriced_resource_types",
  size_member_unreadable: "unreadable_fields",
  pricing_adjustments_unreadable: "unreadable_fields",
  project_not_registered: "unregistered_projects",
} as const satisfies Record<string, WarningClass>;
type WarningCode = keyof typeof warningCodes;

export interface WarningStats {
  warnings: Record<WarningClass, number>;
  codes: Partial<Record<WarningCode, number>>;
}

export class RunWarnings {
  readonly #classes = new Map<WarningClass, number>(warningClasses.map((c) => [c, 0]));
  readonly #codes = new Map<WarningCode, number>();

  add(code: WarningCode, count = 1): void {
    if (count === 0) return;
    const cls = warningCodes[code];
    this.#classes.set(cls, (this.#classes.get(cls) ?? 0) + count);
    this.#codes.set(code, (this.#codes.get(code) ?? 0) + count);
  }

  /** Adds counts taken elsewhere (a worker's shard of the month, decision 470), code by code. */
  addStats(stats: Pick<WarningStats, "codes">): void {
    for (const [code, n] of Object.entries(stats.codes) as [WarningCode, number][]) this.add(code, n);
  }

  count(code: WarningCode): number {
    return this.#codes.get(code) ?? 0;
  }

  stats(): WarningStats {
    const codes: Partial<Record<WarningCode, number>> = {};
    for (const code of Object.keys(warningCodes) as WarningCode[]) {
      const n = this.#codes.get(code);
      if (n !== undefined) codes[code] = n;
    }
    return {
      warnings: Object.fromEntries(warningClasses.map((c) => [c, this.#classes.get(c) ?? 0])) as Record<
        WarningClass,
        number
      >,
      codes,
    };
  }
}

/**
 * `warnings recorded in runs.stats: metering=1 counter=0 … (history_starts_without_create=1)`: every
 * class with its count, then the named codes that occurred, so a zero line still shows all seven.
 */
export function warningsLine(stats: WarningStats): string {
  const classes = warningClasses.map((c) => `${c}=${stats.warnings[c]}`).join(" ");
  const codes = Object.entries(stats.codes)
    .map(([code, n]) => `${code}=${n}`)
    .join(" ");
  return `warnings recorded in runs.stats: ${classes}${codes === "" ? "" : ` (${codes})`}`;
}

/**
 * The line that follows the warnings line when the metrics store could not be read: egress is missing
 * from the numbers, and `again` (the command that made them) should be run once the store answers.
 */
export function counterHint(stats: WarningStats, again: string): string | null {
  const unreachable = stats.codes.counter_store_unreachable ?? 0;
  if (unreachable === 0) return null;
  return `the metrics store could not be read for ${unreachable} resources: egress is missing, rerun the period once it answers (${again})`;
}
