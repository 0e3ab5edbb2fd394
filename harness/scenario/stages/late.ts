import type { Period } from "../../../lib/foundation/time/period.ts";
import { readLateOutput } from "../engine-output.ts";
import { engineEnv, need } from "./run-state.ts";
import type { ReportedStage } from "./stage.ts";

interface EventLine {
  resource_type: string;
  resource_id: string;
  timestamp: string;
}

const resourceOf = (e: EventLine) => `${e.resource_type}/${e.resource_id}`;
const parseLines = (lines: readonly string[]) => lines.map((l) => JSON.parse(l) as EventLine);

/** `<type>/<id>` of every resource an `events.jsonl` line names. */
export function resourcesOf(lines: readonly string[]): Set<string> {
  return new Set(parseLines(lines).map(resourceOf));
}

/**
 * What the held share should do to the finalized run: the resources with a held event dated inside the
 * month (`detect-late` names exactly those), those with any held event (a held transition before the
 * month moves the bill too), and how many histories the run read without their first
 * event (each warned `history_starts_without_create`: its earliest event was held, a later one was not).
 */
function lateShare(published: readonly string[], held: readonly string[], period: Period) {
  const first = new Map<string, { at: string; held: boolean }>();
  const seen = new Set<string>();
  for (const [isHeld, lines] of [
    [false, published],
    [true, held],
  ] as const) {
    for (const e of parseLines(lines)) {
      const key = resourceOf(e);
      if (!isHeld) seen.add(key);
      const known = first.get(key);
      if (known === undefined || e.timestamp < known.at) first.set(key, { at: e.timestamp, held: isHeld });
    }
  }
  const inMonth = parseLines(held).filter((e) => e.timestamp >= period.from && e.timestamp < period.to);
  return {
    held: new Set(inMonth.map(resourceOf)),
    touched: resourcesOf(held),
    startsLate: [...first].filter(([key, f]) => f.held && seen.has(key)).length,
  };
}

/** `engine detect-late --period` after a held share arrived. */
export const lateStage: ReportedStage = {
  name: "late",
  needed: (run) => need(run, "generated").held.length > 0,
  async run(run) {
    const { period } = run.options;
    const generated = need(run, "generated");
    const args = ["detect-late", "--period", period.name];
    const late = {
      ...lateShare(generated.published, generated.held, period),
      detected: readLateOutput(await run.programs.run("engine", args, engineEnv(run))),
    };
    run.late = late;
    return `detect-late names ${late.detected.length} resources with events received after the month was read`;
  },
};
