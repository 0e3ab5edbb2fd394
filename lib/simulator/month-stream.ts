import type { JsonObject } from "../events/event.ts";
import { encodeEnvelope } from "../oslo/envelope.ts";
import { maxBodyBytes } from "../oslo/notification.ts";
import type { FaultSwitch } from "./fault-switch.ts";
import { type Month, resourceKey, type SimResource } from "./month.ts";
import type { RenderInput } from "./notification-context.ts";
import { type NotificationLine, notificationTopic } from "./notification-line.ts";
import { novaVersionedMessage } from "./nova-notification.ts";
import { Prng } from "./prng.ts";
import { exchangeOf, renderLine, renderMessage, stepInputs } from "./render-step.ts";

/** A refused twin of a billable transition (spec 2, refused-shapes), under a fresh message id. */
export interface RefusedTwin {
  kind: "oversized" | "truncated" | "versioned";
  message_id: string;
}

/**
 * One notification on its way to the bus: a step of a resource, or a refused twin of one. The line is
 * rendered when it is written (`entryLine`), deterministically, so a duplicate is the same entry twice
 * and comes out byte for byte the same.
 */
export interface StreamEntry {
  input: RenderInput;
  billable: boolean;
  twin: RefusedTwin | null;
}

/** The month as the bus would carry it, and what the switches did to which resource. */
export interface MonthStream {
  published: StreamEntry[];
  held: StreamEntry[];
  /** Resource key `type/id` to the switches that touched it. */
  marks: Map<string, Set<FaultSwitch>>;
}

type Mark = (resource: SimResource, fault: FaultSwitch) => void;

/**
 * Orders the month's notifications by their instants and applies the fault switches (spec 2, Fault
 * switches). Switches change the bus only; each draws from its own seeded stream, so one switch never
 * changes what another picks or what the month is.
 */
export function monthStream(month: Month, faults: readonly FaultSwitch[]): MonthStream {
  const tenants = new Map(month.tenants.map((t) => [t.project_id, t]));
  const from = Date.parse(month.period.from);
  const marks = new Map<string, Set<FaultSwitch>>();
  const mark: Mark = (resource, fault) => {
    const key = resourceKey(resource);
    const set = marks.get(key) ?? new Set<FaultSwitch>();
    set.add(fault);
    marks.set(key, set);
  };
  const on = (fault: FaultSwitch) => faults.includes(fault);

  const sortable: { entry: StreamEntry; r: number; s: number }[] = [];
  month.resources.forEach((resource, r) => {
    stepInputs(resource, tenants).forEach((input, s) => {
      if (on("missing-create") && resource.pre_existing && input.step.at < from) return;
      sortable.push({ entry: { input, billable: input.step.billable, twin: null }, r, s });
    });
  });
  sortable.sort(
    (a, b) =>
      a.entry.input.step.at - b.entry.input.step.at ||
      a.entry.input.step.micros - b.entry.input.step.micros ||
      a.r - b.r ||
      a.s - b.s,
  );
  let entries = sortable.map((x) => x.entry);

  for (const resource of month.resources) {
    if (!resource.pre_existing) continue;
    if (on("missing-create")) mark(resource, "missing-create");
    if (on("pre-existing")) mark(resource, "pre-existing");
  }
  // With pre-existing, everything dated before the month goes out first as one burst; the instants
  // already put it first, so the order holds and a broker publisher paces only what follows.

  if (on("reordering")) entries = reorder(entries, month, mark);

  const held: StreamEntry[] = [];
  if (on("held-back")) {
    const rng = new Prng(month.seed, "faults:held-back");
    const kept: StreamEntry[] = [];
    for (const entry of entries) {
      if (entry.billable && rng.chance(1 / 20)) {
        held.push(entry);
        mark(entry.input.resource, "held-back");
      } else kept.push(entry);
    }
    entries = kept;
  }

  if (on("refused-shapes")) entries = withRefusedTwins(entries, month.seed, mark);
  if (on("duplicates")) entries = withDuplicates(entries, month.seed, mark);
  return { published: entries, held, marks };
}

/** The line of an entry as it is published. */
export function entryLine(entry: StreamEntry): NotificationLine {
  if (entry.twin === null) return renderLine(entry.input);
  return {
    exchange: exchangeOf(entry.input),
    routing_key: notificationTopic,
    body: twinBody(entry.input, entry.twin),
  };
}

/** One in ten resources with at least two billable transitions: its first goes out directly behind its second. */
function reorder(entries: StreamEntry[], month: Month, mark: Mark): StreamEntry[] {
  const rng = new Prng(month.seed, "faults:reordering");
  const billableAt = new Map<SimResource, number[]>();
  entries.forEach((entry, index) => {
    if (!entry.billable) return;
    const list = billableAt.get(entry.input.resource) ?? [];
    list.push(index);
    billableAt.set(entry.input.resource, list);
  });
  const moves = new Map<number, number>();
  for (const resource of month.resources) {
    const indexes = billableAt.get(resource);
    if (indexes === undefined || indexes.length < 2) continue;
    if (!rng.chance(1 / 10)) continue;
    const [first, second] = indexes as [number, number];
    moves.set(second, first);
    mark(resource, "reordering");
  }
  const moved = new Set(moves.values());
  const out: StreamEntry[] = [];
  entries.forEach((entry, index) => {
    if (moved.has(index)) return;
    out.push(entry);
    const follower = moves.get(index);
    const followerEntry = follower === undefined ? undefined : entries[follower];
    if (followerEntry !== undefined) out.push(followerEntry);
  });
  return out;
}

/**
 * Per billable transition one draw in 400: one draw gives an oversized twin (past 1 MiB), two a
 * truncated one (inner message cut in half), twenty a versioned one (compute only). Each twin carries a
 * fresh message id and follows its original on the same exchange.
 */
function withRefusedTwins(entries: StreamEntry[], seed: number, mark: Mark): StreamEntry[] {
  const rng = new Prng(seed, "faults:refused-shapes");
  const out: StreamEntry[] = [];
  for (const entry of entries) {
    out.push(entry);
    if (!entry.billable) continue;
    const draw = rng.int(0, 399);
    const kind =
      draw === 0
        ? "oversized"
        : draw <= 2
          ? "truncated"
          : draw <= 22 && entry.input.resource.resource_type === "instance"
            ? "versioned"
            : null;
    if (kind === null) continue;
    out.push({ input: entry.input, billable: false, twin: { kind, message_id: rng.uuid() } });
    mark(entry.input.resource, "refused-shapes");
  }
  return out;
}

function twinBody(input: RenderInput, twin: RefusedTwin): string {
  if (twin.kind === "versioned") return encodeEnvelope(novaVersionedMessage(input, twin.message_id));
  const message: JsonObject = { ...renderMessage(input), message_id: twin.message_id };
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

/** One in 20 billable transitions is published again, byte for byte, ten notifications later (or after the last). */
function withDuplicates(entries: StreamEntry[], seed: number, mark: Mark): StreamEntry[] {
  const rng = new Prng(seed, "faults:duplicates");
  const due = new Map<number, StreamEntry[]>();
  const last = entries.length - 1;
  entries.forEach((entry, index) => {
    if (!entry.billable || !rng.chance(1 / 20)) return;
    const at = Math.min(index + 10, last);
    const list = due.get(at) ?? [];
    list.push(entry);
    due.set(at, list);
    mark(entry.input.resource, "duplicates");
  });
  const out: StreamEntry[] = [];
  entries.forEach((entry, index) => {
    out.push(entry);
    for (const copy of due.get(index) ?? []) out.push(copy);
  });
  return out;
}
