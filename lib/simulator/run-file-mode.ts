import { join } from "node:path";
import { generateMonth } from "./generate-month.ts";
import { clearMonthFiles, writeLines } from "./month-files.ts";
import { monthStream } from "./month-stream.ts";
import { encodeLine } from "./notification-line.ts";
import { buildOracle } from "./oracle.ts";
import { encodeOracle } from "./oracle-document.ts";
import type { RunOptions } from "./run-options.ts";
import { streamEvents } from "./stream-events.ts";

export interface FileModeReport {
  resources: number;
  published: number;
  held: number;
  events: number;
  paths: string[];
}

/** Phases of a generation, for a progress line on a terminal. */
export type Progress = (phase: string) => void;

/**
 * `run --out`: the whole month to files (spec 2, rule 6). The four files of an earlier run go first;
 * `held-back.jsonl` is written only when a switch holds notifications back. `events.jsonl` holds the
 * events of the published lines and then of the held ones, the order in which a collector would see them.
 */
export async function runFileMode(
  options: RunOptions,
  cloud: string,
  out: string,
  progress: Progress = () => {},
): Promise<FileModeReport> {
  await clearMonthFiles(out);
  progress("generating the month");
  const month = generateMonth({ seed: options.seed, period: options.period, cloud, scale: options.scale });
  progress(`rendering the notifications of ${month.resources.length} resources`);
  const stream = monthStream(month, options.faults);
  const oracle = buildOracle(month, options.faults, stream.marks);
  progress(`writing ${stream.published.length + stream.held.length} notifications and their events`);
  const paths = [join(out, "notifications.jsonl"), join(out, "events.jsonl"), join(out, "oracle.json")];
  await writeLines(paths[0] as string, mapIter(stream.published, encodeLine));
  let events = 0;
  const eventLines = mapIter(streamEvents(concat(stream.published, stream.held), cloud), (e) => {
    events += 1;
    return JSON.stringify(e);
  });
  await writeLines(paths[1] as string, eventLines);
  await Bun.write(paths[2] as string, encodeOracle(oracle));
  if (options.faults.includes("held-back")) {
    const held = join(out, "held-back.jsonl");
    await writeLines(held, mapIter(stream.held, encodeLine));
    paths.push(held);
  }
  return {
    resources: month.resources.length,
    published: stream.published.length,
    held: stream.held.length,
    events,
    paths,
  };
}

function* mapIter<T>(items: Iterable<T>, f: (item: T) => string): Iterable<string> {
  for (const item of items) yield f(item);
}

function* concat<T>(...lists: Iterable<T>[]): Iterable<T> {
  for (const list of lists) yield* list;
}
