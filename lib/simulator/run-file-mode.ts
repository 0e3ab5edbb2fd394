import { join } from "node:path";
import { platformA } from "../events/event.ts";
import { interpretDelivery } from "../oslo/interpret-delivery.ts";
import type { FaultSwitch } from "./fault-switch.ts";
import { generateMonth } from "./generate-month.ts";
import type { Month } from "./month.ts";
import { clearMonthFiles, type LineSink, lineSink } from "./month-files.ts";
import { entryLine, type MonthStream, monthStream, type StreamEntry } from "./month-stream.ts";
import { encodeLine } from "./notification-line.ts";
import { buildOracle } from "./oracle.ts";
import { encodeOracle } from "./oracle-document.ts";
import type { RunOptions } from "./run-options.ts";

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
 * `run --out`: the whole month to files, or null when `signal` stopped the run (its files removed) (spec 2, rule 6). The four files of an earlier run go first;
 * `held-back.jsonl` is written only when a switch holds notifications back. `events.jsonl` holds the
 * events of the published lines and then of the held ones, the order in which a collector would see them.
 */
export async function runFileMode(
  options: RunOptions,
  cloud: string,
  out: string,
  progress: Progress = () => {},
  signal: AbortSignal = new AbortController().signal,
): Promise<FileModeReport | null> {
  await clearMonthFiles(out);
  progress("generating the month");
  const month = generateMonth({ seed: options.seed, period: options.period, cloud, scale: options.scale });
  progress(`ordering the notifications of ${month.resources.length} resources`);
  const stream = monthStream(month, options.faults);
  return writeMonthFiles({ month, stream, faults: options.faults, out, progress, signal });
}

/**
 * Writes a generated month into `out`, whose earlier files are already removed; null when `signal`
 * stopped it (its files removed again).
 */
export async function writeMonthFiles(input: {
  month: Month;
  stream: MonthStream;
  faults: readonly FaultSwitch[];
  out: string;
  progress?: Progress;
  signal?: AbortSignal;
}): Promise<FileModeReport | null> {
  const { month, stream, out } = input;
  const progress = input.progress ?? (() => {});
  const signal = input.signal ?? new AbortController().signal;
  const cloud = month.cloud;
  const total = stream.published.length + stream.held.length;
  const paths = [join(out, "notifications.jsonl"), join(out, "events.jsonl"), join(out, "oracle.json")];
  const holding = input.faults.includes("held-back");
  if (holding) paths.push(join(out, "held-back.jsonl"));
  const [notificationsPath, eventsPath, oraclePath, heldPath] = paths as [string, string, string, string?];

  const notifications = lineSink(notificationsPath);
  const eventSink = lineSink(eventsPath);
  const held = heldPath === undefined ? null : lineSink(heldPath);
  const target = { platform: platformA, cloud };
  let events = 0;
  let written = 0;
  // One pass renders each line once, writes it, and writes the event the collector would map from it.
  const emit = (entry: StreamEntry, sink: LineSink) => {
    const line = entryLine(entry);
    sink.line(encodeLine(line));
    const outcome = interpretDelivery(line.body, target);
    if (outcome.outcome === "consumed") {
      eventSink.line(outcome.event_json);
      events += 1;
    }
    written += 1;
    if (written % 20_000 === 0) progress(`writing notifications and events: ${written} of ${total}`);
  };
  const sinks = [notifications, eventSink, ...(held === null ? [] : [held])];
  const batches: [StreamEntry[], LineSink | null][] = [
    [stream.published, notifications],
    [stream.held, held],
  ];
  for (const [entries, sink] of batches) {
    if (sink === null) continue;
    for (let i = 0; i < entries.length; i++) {
      emit(entries[i] as StreamEntry, sink);
      // Let a signal in now and then: a stopped run leaves no half month behind.
      if (i % 5000 === 4999) await new Promise((resolve) => setImmediate(resolve));
      if (signal.aborted) {
        await Promise.all(sinks.map((s) => s.end()));
        await clearMonthFiles(out);
        return null;
      }
    }
  }
  await Promise.all(sinks.map((s) => s.end()));
  await Bun.write(oraclePath, encodeOracle(buildOracle(month, input.faults, stream.marks)));
  return {
    resources: month.resources.length,
    published: stream.published.length,
    held: stream.held.length,
    events,
    paths,
  };
}
