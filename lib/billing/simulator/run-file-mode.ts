import { edenGC } from "bun:jsc";
import { mkdtemp, rm } from "node:fs/promises";
import { join } from "node:path";
import { RecordWriter } from "../../foundation/collections/byte-record.ts";
import { compare } from "../../foundation/collections/compare.ts";
import type { SortCodec } from "../../foundation/collections/external-sort.ts";
import { ExternalSort } from "../../foundation/collections/external-sort.ts";
import { RecordSort } from "../../foundation/collections/record-sort.ts";
import { type LineSink, lineSink } from "../../foundation/files/line-sink.ts";
import type { Period } from "../../foundation/time/period.ts";
import { platformA } from "../events/event.ts";
import type { MappingTarget } from "../oslo/map-notification.ts";
import { canonicalFaultOrder, type FaultSwitch } from "./fault-switch.ts";
import { type MonthSource, monthSource } from "./generate-month.ts";
import { resourceKey } from "./month.ts";
import { clearMonthFiles } from "./month-files.ts";
import { MonthRecordEntry, monthRecord } from "./month-record.ts";
import {
  entryDelivery,
  FaultPipeline,
  type Mark,
  preExistingMarks,
  ReorderDraw,
  reorderCandidate,
  resourceEntries,
  type StreamEntry,
} from "./month-stream.ts";
import type { NovaFormat } from "./nova-format.ts";
import {
  compareCounts,
  compareTraffic,
  type OracleCount,
  type OracleResource,
  type OracleTraffic,
  oracleFormat,
  resourceStatement,
} from "./oracle.ts";
import { OracleEncoder } from "./oracle-document.ts";
import type { RunOptions } from "./run-options.ts";
import { streamEntryCodec } from "./stream-entry-codec.ts";

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
 * What the file mode keeps in memory, at most, before it sorts on disk (decision 245): the month's
 * notifications take most of it. Below it a month is written without a temporary file.
 */
export const defaultMemoryBudget = 64 * 2 ** 20;

/**
 * `run --out`: the whole month to files, or null when `signal` stopped the run (its files removed) (docs/simulator.md#writing-a-month-to-files). The four files of an earlier run go first;
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
  const source = monthSource({
    seed: options.seed,
    period: options.period,
    cloud,
    scale: options.scale,
    extraTypes: options.extraTypes,
  });
  return writeMonthFiles({
    source,
    seed: options.seed,
    period: options.period,
    cloud,
    faults: options.faults,
    novaFormat: options.novaFormat,
    out,
    progress,
    signal,
  });
}

/** Ends a stopped run at its next pause. */
class Stopped extends Error {}

/**
 * Writes a month into `out`, whose earlier files are already removed; null when `signal` stopped it
 * (its files removed again). The month streams through: each resource is turned into its entries and
 * its statement as it is drawn, sorts bounded by `memoryBytes` order them, and the fault switches act
 * on the ordered entries as they are written. The order in which `source` gives the resources does
 * not matter: every output is sorted by keys.
 */
export async function writeMonthFiles(input: MonthFilesInput): Promise<FileModeReport | null> {
  const { out, faults } = input;
  const progress = input.progress ?? (() => {});
  const signal = input.signal ?? new AbortController().signal;
  const paths = [join(out, "notifications.jsonl"), join(out, "events.jsonl"), join(out, "oracle.json")];
  if (faults.includes("held-back")) paths.push(join(out, "held-back.jsonl"));

  // Sort runs go beside the month, on the disk that must hold it anyway.
  const work = await mkdtemp(join(out, ".svc-simulator-"));
  const sorts = monthSorts(work, input.memoryBytes ?? defaultMemoryBudget);
  const sinks: LineSink[] = [];
  // Every other pause: 512 resources drawn, or 10,000 entries written.
  const collect = garbageCollection(2, "eden");
  const run: FileRun = {
    sorts,
    progress,
    work,
    target: { platform: platformA, cloud: input.cloud },
    // A refused twin is rendered from its entry, which then rides along in the record.
    inputs: streamEntryCodec(new Map(input.source.tenants.map((t) => [t.project_id, t])), input.novaFormat),
    open(path) {
      const sink = lineSink(path);
      sinks.push(sink);
      return sink;
    },
    async pause() {
      await new Promise((resolve) => setImmediate(resolve));
      if (signal.aborted) throw new Stopped();
      for (const sort of jsonSorts(sorts)) if (sort.full) await sort.spill();
      collect.made();
    },
  };
  try {
    const resources = await drawMonth(run, input);
    const count = await writeBus(run, input, paths);
    // The oracle, from the sorted statements and the marks the switches left.
    progress("writing the oracle");
    collect.now();
    const { seed, period, cloud } = input;
    await writeOracle({ sorts, path: paths[2] as string, head: { seed, period, cloud }, faults });
    await Promise.all(sinks.map((s) => s.end()));
    return { resources, ...count, paths };
  } catch (error) {
    if (!(error instanceof Stopped)) throw error;
    await Promise.all(sinks.map((s) => s.end()));
    await clearMonthFiles(out);
    return null;
  } finally {
    sorts.entries.discard();
    for (const sort of jsonSorts(sorts)) await sort.discard();
    await rm(work, { recursive: true, force: true });
  }
}

export interface MonthFilesInput {
  source: MonthSource;
  seed: number;
  period: Period;
  cloud: string;
  faults: readonly FaultSwitch[];
  /** What nova sends; legacy when absent. */
  novaFormat?: NovaFormat;
  out: string;
  progress?: Progress;
  signal?: AbortSignal;
  memoryBytes?: number;
}

/** What the phases of one file-mode run share. */
interface FileRun {
  sorts: MonthSorts;
  progress: Progress;
  /** The run's hidden directory beside the month. */
  work: string;
  target: MappingTarget;
  /** How an entry rides along in its record, for a refused twin made of it after the sort. */
  inputs: SortCodec<StreamEntry>;
  /** A line sink of the run, ended with it. */
  open(path: string): LineSink;
  /** Yields to the event loop, ends a stopped run, spills a full sort. */
  pause(): Promise<void>;
}

/**
 * Draws the month resource by resource: each turned into its entries (rendered and mapped, decision
 * 252) and its statement, counts and traffic, all into the sorts. Returns how many resources.
 */
async function drawMonth(run: FileRun, input: MonthFilesInput): Promise<number> {
  const { sorts, progress } = run;
  const { source, faults, period } = input;
  const fromMs = Date.parse(period.from);
  const toMs = Date.parse(period.to);
  progress("generating the month");
  const tenants = new Map(source.tenants.map((t) => [t.project_id, t]));
  const entryOptions = {
    fromMs,
    missingCreate: faults.includes("missing-create"),
    novaFormat: input.novaFormat ?? "legacy",
  };
  const recordOptions = { target: run.target, inputs: faults.includes("refused-shapes") ? run.inputs : null };
  const writer = new RecordWriter();
  let resources = 0;
  for (const resource of source.resources()) {
    const entries = resourceEntries(resource, tenants, entryOptions);
    for (const entry of entries) sorts.entries.add(monthRecord(writer, entry, recordOptions));
    if (reorderCandidate(entries)) sorts.candidates.add(resourceKey(resource));
    const statement = resourceStatement(resource, fromMs, toMs);
    statement.resource.faults = preExistingMarks(resource, faults);
    sorts.statements.add([resourceKey(resource), statement.resource]);
    for (const count of statement.counts) sorts.counts.add(count);
    for (const row of statement.traffic) sorts.traffic.add(row);
    if (++resources % 256 === 0) {
      progress(`generating the month: ${resources} resources`);
      await run.pause();
    }
  }
  return resources;
}

/**
 * Lays out the bus: the reordering draw in resource order, then the switches in bus order over the
 * sorted entries, each written as it leaves the pipeline. The held share's events follow the
 * published ones in `events.jsonl`, as a collector would see them.
 */
async function writeBus(
  run: FileRun,
  input: MonthFilesInput,
  paths: readonly string[],
): Promise<{ published: number; held: number; events: number }> {
  const { sorts, progress } = run;
  const { seed, faults } = input;
  const [notificationsPath, eventsPath, , heldPath] = paths as [string, string, string, string?];
  const mark: Mark = (key, fault) => {
    sorts.marks.add([key, fault]);
  };
  const draw = new ReorderDraw(seed, mark);
  if (faults.includes("reordering")) {
    await sorts.candidates.drain((key) => {
      draw.consider(key);
      return undefined;
    });
  } else await sorts.candidates.discard();

  const events = run.open(eventsPath);
  const published = { lines: run.open(notificationsPath), events };
  const heldEventsPath = join(run.work, "held-events.jsonl");
  const held =
    heldPath === undefined ? null : { lines: run.open(heldPath), events: run.open(heldEventsPath) };
  const count = { published: 0, held: 0, events: 0 };
  const write = recordWriter(run, () => {
    count.events += 1;
  });
  const pipeline = new FaultPipeline<MonthRecordEntry>({
    seed,
    faults,
    reordered: draw.picked,
    mark,
    sink: {
      published(entry) {
        count.published += write(entry, published);
      },
      held(entry) {
        if (held === null) throw new RangeError("held without held-back");
        count.held += write(entry, held);
      },
    },
    twin: (entry, twin) => new MonthRecordEntry(entry.record, twin),
    keep: (entry) => entry.kept(),
  });
  const total = sorts.entries.size;
  let pushed = 0;
  for (const record of sorts.entries.records()) {
    pipeline.push(new MonthRecordEntry(record));
    if (++pushed % 5000 !== 0) continue;
    progress(`writing notifications and events: ${pushed} of ${total}`);
    await run.pause();
  }
  pipeline.end();
  if (held !== null) {
    await held.events.end();
    for await (const chunk of Bun.file(heldEventsPath).stream()) events.bytes(chunk);
  }
  return count;
}

/**
 * Writes a record's lines and its event to a pair of sinks, and returns how many lines. A refused twin
 * is rendered here, from the entry its record carries.
 */
function recordWriter(run: FileRun, wroteEvent: () => void) {
  const twinGarbage = garbageCollection(8 << 20, "full");
  return (entry: MonthRecordEntry, to: { lines: LineSink; events: LineSink }): number => {
    const fields = entry.fields();
    if (entry.twin !== null) {
      if (fields.input === null) throw new RangeError("a refused twin of a record without its entry");
      const { line, outcome } = entryDelivery(
        { ...run.inputs.decode(fields.input), twin: entry.twin },
        run.target,
      );
      to.lines.line(line);
      // An oversized twin leaves megabytes of strings behind, outside the heap JavaScriptCore sizes.
      twinGarbage.made(line.length);
      if (outcome.outcome === "consumed") {
        to.events.line(outcome.event_json);
        wroteEvent();
      }
      return 1;
    }
    to.lines.line(fields.line);
    if (fields.event !== null) {
      to.events.line(fields.event);
      wroteEvent();
    }
    return fields.lines;
  };
}

/**
 * A garbage collection at every `every` of work done (calls, or bytes), or a full one now (decision 253):
 * JavaScriptCore sized its heap by the rate of allocation and let a phase that makes only garbage
 * (rendered messages, parsed statements, much of it strings outside its heap) grow the peak with the
 * month. Collecting at fixed amounts of work bounds it by that amount. While the month is drawn and
 * written an eden collection is enough (that garbage dies young) and costs little; the oracle's
 * merges need full ones, their items outliving a young collection.
 */
function garbageCollection(every: number, kind: "eden" | "full") {
  let made = 0;
  return {
    /** Counts `amount` of work done (calls, or bytes); collects at every `every`. */
    made(amount = 1): void {
      made += amount;
      if (made < every) return;
      made = 0;
      if (kind === "full") Bun.gc(true);
      else edenGC();
    },
    now(): void {
      made = 0;
      Bun.gc(true);
    },
  };
}

type MonthSorts = ReturnType<typeof monthSorts>;

/** The sorts of a month that hold objects, as JSON: all but the entries'. */
function jsonSorts(sorts: MonthSorts) {
  const { entries: _, ...rest } = sorts;
  return Object.values(rest);
}

/** The sorts of a month, sharing one memory budget; the notifications take most of it. */
function monthSorts(workDir: string, budget: number) {
  const json = <T>() => ({
    encode: (item: T) => JSON.stringify(item),
    decode: (line: string) => JSON.parse(line) as T,
  });
  const share = (part: number) => Math.max(1, Math.floor(budget * part));
  // Every sort but the entries' stores its items as JSON lines, with its part of the budget.
  const jsonSort = <T>(compare: (a: T, b: T) => number, bytesPerItem: number, part: number) =>
    new ExternalSort<T>({ compare, codec: json<T>(), bytesPerItem, budgetBytes: share(part), workDir });
  const byKey = (a: [string, unknown], b: [string, unknown]) => compare(a[0], b[0]);
  return {
    entries: new RecordSort({ budgetBytes: share(0.7), workDir }),
    statements: jsonSort<[string, OracleResource]>(byKey, 1500, 0.15),
    counts: jsonSort<OracleCount>(compareCounts, 200, 0.03),
    traffic: jsonSort<OracleTraffic>(compareTraffic, 300, 0.06),
    candidates: jsonSort<string>(compare, 100, 0.03),
    marks: jsonSort<[string, FaultSwitch]>(byKey, 120, 0.03),
  };
}

async function* items<T>(batches: AsyncGenerator<T[]>): AsyncGenerator<T> {
  for await (const batch of batches) yield* batch;
}

async function writeOracle(input: {
  sorts: MonthSorts;
  path: string;
  head: { seed: number; period: Period; cloud: string };
  faults: readonly FaultSwitch[];
}): Promise<void> {
  const { sorts, head } = input;
  const collect = garbageCollection(8192, "full");
  const sink = lineSink(input.path);
  const encoder = new OracleEncoder((text) => sink.text(text), {
    format: oracleFormat,
    cloud: head.cloud,
    seed: head.seed,
    period_from: head.period.from,
    period_to: head.period.to,
  });

  encoder.open("resources");
  const marks = items(sorts.marks.batches());
  let mark = await marks.next();
  for await (const batch of sorts.statements.batches()) {
    for (const [key, resource] of batch) {
      const touched = new Set(resource.faults);
      while (!mark.done && mark.value[0] <= key) {
        if (mark.value[0] === key) touched.add(mark.value[1]);
        mark = await marks.next();
      }
      encoder.item({ ...resource, faults: canonicalFaultOrder(touched) });
      collect.made();
    }
  }
  await marks.return(undefined);

  // A count per (owner, type) and resource: equal keys are adjacent once sorted, and summed.
  encoder.open("counts");
  let sum: OracleCount | null = null;
  await sorts.counts.drain((count) => {
    if (sum !== null && compareCounts(sum, count) === 0) sum.count += count.count;
    else {
      if (sum !== null) encoder.item(sum);
      collect.made();
      sum = { ...count };
    }
    return undefined;
  });
  if (sum !== null) encoder.item(sum);

  encoder.open("faults");
  for (const fault of canonicalFaultOrder(input.faults)) encoder.item(fault);

  encoder.open("traffic");
  await sorts.traffic.drain((row) => {
    encoder.item(row);
    collect.made();
    return undefined;
  });
  encoder.end();
  await sink.end();
}
