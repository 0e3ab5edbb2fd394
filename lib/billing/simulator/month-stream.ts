import { compare } from "../../foundation/collections/compare.ts";
import type { JsonObject } from "../../foundation/json/json-value.ts";
import { Prng } from "../../foundation/random/prng.ts";
import { encodeEnvelope, readMessage } from "../oslo/envelope.ts";
import { type DeliveryOutcome, interpretDelivery, interpretEnvelope } from "../oslo/interpret-delivery.ts";
import type { MappingTarget } from "../oslo/map-notification.ts";
import { maxBodyBytes } from "../oslo/notification.ts";
import { TransitionTwins } from "../oslo/transition-twins.ts";
import type { FaultSwitch } from "./fault-switch.ts";
import { type Month, resourceKey, type SimResource, type Tenant } from "./month.ts";
import type { RenderInput } from "./notification-context.ts";
import { encodeLine, type NotificationLine, notificationTopic } from "./notification-line.ts";
import type { NovaFormat } from "./nova-format.ts";
import {
  exchangeOf,
  type NotificationForm,
  renderForFile,
  renderLine,
  renderMessage,
  stepInputs,
} from "./render-step.ts";

/** A refused twin of a billable transition (docs/simulator.md#fault-switches), under a fresh message id. */
export interface RefusedTwin {
  kind: "oversized" | "truncated" | "versioned";
  message_id: string;
}

/**
 * One notification on its way to the bus: a step of a resource, or a refused twin of one. The line is
 * rendered when it is written (`entryLines`), deterministically, so a duplicate is the same entry twice
 * and comes out byte for byte the same.
 */
export interface StreamEntry {
  input: RenderInput;
  billable: boolean;
  twin: RefusedTwin | null;
  /** `resourceKey` of the entry's resource: faults and ties go by it, not by object identity. */
  key: string;
  /**
   * The forms its notification goes out in, in order: one, or nova's two under `--nova-format both`,
   * which travel together as one entry (the switches hold, repeat or move a transition, never one of
   * its twins alone).
   */
  forms: readonly NotificationForm[];
}

/** The forms of a resource's notifications in a month of `novaFormat` (only instances have two). */
export function formsOf(
  novaFormat: NovaFormat,
  resource: { resource_type: string },
): readonly NotificationForm[] {
  if (resource.resource_type !== "instance" || novaFormat === "legacy") return legacyOnly;
  return novaFormat === "versioned" ? versionedOnly : bothForms;
}

const legacyOnly: readonly NotificationForm[] = ["legacy"];
const versionedOnly: readonly NotificationForm[] = ["versioned"];
const bothForms: readonly NotificationForm[] = ["legacy", "versioned"];

/** The month as the bus would carry it, and what the switches did to which resource. */
export interface MonthStream {
  published: StreamEntry[];
  held: StreamEntry[];
  /** Resource key `type/id` to the switches that touched it. */
  marks: Map<string, Set<FaultSwitch>>;
}

/** Records that a switch touched a resource. */
export type Mark = (key: string, fault: FaultSwitch) => void;

/**
 * The entries of one resource in its own order, without the pre-month ones when missing-create is
 * on. Their order in the month is `compareEntries`.
 */
export function resourceEntries(
  resource: SimResource,
  tenants: ReadonlyMap<string, Tenant>,
  options: { fromMs: number; missingCreate: boolean; novaFormat?: NovaFormat },
): StreamEntry[] {
  const key = resourceKey(resource);
  const dropEarly = options.missingCreate && resource.pre_existing;
  const forms = formsOf(options.novaFormat ?? "legacy", resource);
  const entries: StreamEntry[] = [];
  for (const input of stepInputs(resource, tenants)) {
    if (dropEarly && input.step.at < options.fromMs) continue;
    entries.push({ input, billable: input.step.billable, twin: null, key, forms });
  }
  return entries;
}

/**
 * The month's order: by instant, then microseconds, then resource (type, then id: the order of
 * `Month.resources`); within a resource instants are strictly increasing, so the order is total.
 * No resource type is a prefix of another, so comparing the keys `type/id` compares type, then id.
 */
export function compareEntries(a: StreamEntry, b: StreamEntry): number {
  const x = a.input.step;
  const y = b.input.step;
  return x.at - y.at || x.micros - y.micros || compare(a.key, b.key);
}

/** A resource the reordering switch may pick: at least two billable transitions on the bus. */
export function reorderCandidate(entries: readonly StreamEntry[]): boolean {
  let billable = 0;
  for (const entry of entries) if (entry.billable && ++billable === 2) return true;
  return false;
}

/**
 * The reordering draw: one in ten candidates, offered in resource order (by key), is reordered and
 * marked. `picked` is what `FaultPipeline` takes as `reordered`.
 */
export class ReorderDraw {
  readonly picked = new Set<string>();
  private readonly rng: Prng;

  constructor(
    seed: number,
    private readonly mark: Mark,
  ) {
    this.rng = new Prng(seed, "faults:reordering");
  }

  consider(key: string): void {
    if (!this.rng.chance(1 / 10)) return;
    this.picked.add(key);
    this.mark(key, "reordering");
  }
}

/** What the fault pipeline reads of an entry: whether it books a transition, and its resource. */
export interface BusEntry {
  billable: boolean;
  /** `resourceKey` of the entry's resource. */
  key: string;
}

/** Where the fault pipeline sends the month: the lines for the bus and the held share. */
export interface FaultSink<E> {
  published(entry: E): void;
  held(entry: E): void;
}

/**
 * Applies the switches that change the bus to the month's entries, pushed one by one in the month's
 * order (docs/simulator.md#fault-switches): reordering, then held-back, refused-shapes and duplicates, each
 * drawing from its own seeded stream in bus order, so one switch never changes what another picks.
 * It holds only what a switch delays: the first transition of a reordered resource until its
 * second, and a duplicate for ten notifications, so a month of any size passes through it.
 */
export class FaultPipeline<E extends BusEntry> {
  private readonly waiting: Set<string>;
  private readonly delayed = new Map<string, E>();
  private readonly heldRng: Prng | null;
  private readonly twinRng: Prng | null;
  private readonly duplicateRng: Prng | null;
  private index = 0;
  private due: { at: number; entry: E }[] = [];
  private dueHead = 0;

  constructor(
    private readonly options: {
      seed: number;
      faults: readonly FaultSwitch[];
      /** The resources `ReorderDraw` picked (empty without the switch). */
      reordered: ReadonlySet<string>;
      sink: FaultSink<E>;
      mark: Mark;
      /** The refused twin of an entry, as an entry. */
      twin: (entry: E, twin: RefusedTwin) => E;
      /** An entry the pipeline holds past the `push` that brought it (entries may be views valid until the next). */
      keep: (entry: E) => E;
    },
  ) {
    const { seed, faults } = options;
    this.waiting = new Set(options.reordered);
    this.heldRng = faults.includes("held-back") ? new Prng(seed, "faults:held-back") : null;
    this.twinRng = faults.includes("refused-shapes") ? new Prng(seed, "faults:refused-shapes") : null;
    this.duplicateRng = faults.includes("duplicates") ? new Prng(seed, "faults:duplicates") : null;
  }

  /** The next entry of the month, in `compareEntries` order. */
  push(entry: E): void {
    if (entry.billable && (this.waiting.size > 0 || this.delayed.size > 0)) {
      // A reordered resource's first billable transition goes out directly behind its second.
      const first = this.delayed.get(entry.key);
      if (first !== undefined) {
        this.delayed.delete(entry.key);
        this.holdBack(entry);
        this.holdBack(first);
        return;
      }
      if (this.waiting.delete(entry.key)) {
        this.delayed.set(entry.key, this.options.keep(entry));
        return;
      }
    }
    this.holdBack(entry);
  }

  /** The month is over: repeats due after its last notification go out. */
  end(): void {
    for (let i = this.dueHead; i < this.due.length; i++) {
      this.options.sink.published((this.due[i] as { entry: E }).entry);
    }
    this.due = [];
    this.dueHead = 0;
  }

  /** One in 20 billable transitions goes to the held share. */
  private holdBack(entry: E): void {
    if (this.heldRng !== null && entry.billable && this.heldRng.chance(1 / 20)) {
      this.options.sink.held(entry);
      this.options.mark(entry.key, "held-back");
      return;
    }
    this.twins(entry);
  }

  /**
   * Per billable transition one draw in 400: one draw gives an oversized twin (past 1 MiB), two a
   * truncated one (inner message cut in half), twenty a versioned one (compute only). Each twin
   * carries a fresh message id and follows its original on the same exchange.
   */
  private twins(entry: E): void {
    this.duplicates(entry);
    if (this.twinRng === null || !entry.billable) return;
    const draw = this.twinRng.int(0, 399);
    const kind =
      draw === 0
        ? "oversized"
        : draw <= 2
          ? "truncated"
          : draw <= 22 && entry.key.startsWith("instance/")
            ? "versioned"
            : null;
    if (kind === null) return;
    const twin = { kind, message_id: this.twinRng.uuid() } as const;
    this.duplicates(this.options.twin(entry, twin));
    this.options.mark(entry.key, "refused-shapes");
  }

  /** One in 20 billable transitions is published again, byte for byte, ten notifications later (or after the last). */
  private duplicates(entry: E): void {
    const index = this.index++;
    if (this.duplicateRng !== null && entry.billable && this.duplicateRng.chance(1 / 20)) {
      this.due.push({ at: index + 10, entry: this.options.keep(entry) });
      this.options.mark(entry.key, "duplicates");
    }
    this.options.sink.published(entry);
    while (this.dueHead < this.due.length && (this.due[this.dueHead] as { at: number }).at === index) {
      this.options.sink.published((this.due[this.dueHead] as { entry: E }).entry);
      this.dueHead += 1;
    }
    if (this.dueHead > 1024 && this.dueHead * 2 > this.due.length) {
      this.due = this.due.slice(this.dueHead);
      this.dueHead = 0;
    }
  }
}

/** Marks of the switches that act on a resource as a whole: its pre-month part is on the bus or not. */
export function preExistingMarks(resource: SimResource, faults: readonly FaultSwitch[]): FaultSwitch[] {
  if (!resource.pre_existing) return [];
  return faults.filter((f) => f === "missing-create" || f === "pre-existing");
}

/**
 * Orders the month's notifications by their instants and applies the fault switches (docs/simulator.md#fault-switches), in memory: what a broker run publishes. Switches change the bus only; with
 * pre-existing, everything dated before the month goes out first as one burst: the instants already
 * put it first, so the order holds and a broker publisher paces only what follows.
 */
export function monthStream(
  month: Month,
  faults: readonly FaultSwitch[],
  novaFormat: NovaFormat = "legacy",
): MonthStream {
  const tenants = new Map(month.tenants.map((t) => [t.project_id, t]));
  const marks = new Map<string, Set<FaultSwitch>>();
  const mark: Mark = (key, fault) => {
    const set = marks.get(key) ?? new Set<FaultSwitch>();
    set.add(fault);
    marks.set(key, set);
  };
  const options = {
    fromMs: Date.parse(month.period.from),
    missingCreate: faults.includes("missing-create"),
    novaFormat,
  };
  const entries: StreamEntry[] = [];
  const candidates: string[] = [];
  for (const resource of month.resources) {
    const own = resourceEntries(resource, tenants, options);
    for (const entry of own) entries.push(entry);
    if (reorderCandidate(own)) candidates.push(resourceKey(resource));
    for (const fault of preExistingMarks(resource, faults)) mark(resourceKey(resource), fault);
  }
  entries.sort(compareEntries);
  const draw = new ReorderDraw(month.seed, mark);
  if (faults.includes("reordering")) for (const key of candidates) draw.consider(key);
  const stream: MonthStream = { published: [], held: [], marks };
  const pipeline = new FaultPipeline<StreamEntry>({
    seed: month.seed,
    faults,
    reordered: draw.picked,
    mark,
    sink: { published: (e) => stream.published.push(e), held: (e) => stream.held.push(e) },
    twin: (entry, twin) => ({ ...entry, billable: false, twin }),
    keep: (entry) => entry,
  });
  for (const entry of entries) pipeline.push(entry);
  pipeline.end();
  return stream;
}

/**
 * The lines of an entry and what a collector makes of them. The mapping reads the message as rendered,
 * not its JSON read back (decision 247): the same notification, without parsing every line twice.
 * A twin, and any body past the collector's limit, goes through the collector's reading of the body.
 * The lines of one entry are read in order through one memory of transitions, as a collector reads
 * them: of nova's two forms the first is booked, the second is its twin (decision 284).
 */
export function entryDelivery(entry: StreamEntry, target: MappingTarget): EntryDelivery {
  if (entry.twin !== null) {
    const line = entryLines(entry)[0] as NotificationLine;
    // A twin follows its original on the bus: it is read after it, as a collector reads it, so a
    // versioned twin of a booked transition is skipped (decision 284).
    const twins = new TransitionTwins();
    interpretEnvelope(readMessage(renderMessage(entry.input, entry.forms[0])), target, twins);
    return { line: encodeLine(line), lines: 1, outcome: interpretDelivery(line.body, target, twins) };
  }
  if (entry.forms.length === 1) {
    const { line, message } = renderForFile(entry.input, entry.forms[0]);
    // A regular line is far below the collector's body limit; its message is mapped as rendered.
    return { line, lines: 1, outcome: interpretEnvelope(readMessage(message), target) };
  }
  const twins = new TransitionTwins();
  const texts: string[] = [];
  let booked: DeliveryOutcome | null = null;
  for (const form of entry.forms) {
    const line = renderLine(entry.input, form);
    texts.push(encodeLine(line));
    const outcome = interpretEnvelope(readMessage(renderMessage(entry.input, form)), target, twins);
    if (booked === null || (booked.outcome !== "consumed" && outcome.outcome === "consumed"))
      booked = outcome;
  }
  return { line: texts.join("\n"), lines: texts.length, outcome: booked as DeliveryOutcome };
}

export interface EntryDelivery {
  /**
   * The entry's lines as `notifications.jsonl` holds them, joined by newlines: as text, or as UTF-8
   * valid until the next rendering.
   */
  line: string | Uint8Array;
  /** How many lines: one, or nova's two forms. */
  lines: number;
  /** What the collector books of them: the consumed outcome when one line is consumed. */
  outcome: DeliveryOutcome;
}

/** The lines of an entry as they are published, in order. */
export function entryLines(entry: StreamEntry): NotificationLine[] {
  if (entry.twin === null) return entry.forms.map((form) => renderLine(entry.input, form));
  return [
    {
      exchange: exchangeOf(entry.input),
      routing_key: notificationTopic,
      body: twinBody(entry.input, entry.twin, entry.forms[0] ?? "legacy"),
    },
  ];
}

/** How many lines an entry is published as. */
export function lineCount(entry: StreamEntry): number {
  return entry.twin === null ? entry.forms.length : 1;
}

function twinBody(input: RenderInput, twin: RefusedTwin, form: NotificationForm): string {
  if (twin.kind === "versioned") {
    return encodeEnvelope({ ...renderMessage(input, "versioned"), message_id: twin.message_id });
  }
  const message: JsonObject = { ...renderMessage(input, form), message_id: twin.message_id };
  if (twin.kind === "oversized") {
    const payload = message.payload as JsonObject;
    message.payload = { ...payload, metadata: { blob: "x".repeat(maxBodyBytes) } };
    return encodeEnvelope(message);
  }
  const inner = JSON.stringify(message);
  return JSON.stringify({
    "oslo.version": "2.0",
    "oslo.message": inner.slice(0, Math.floor(inner.length / 2)),
  });
}
