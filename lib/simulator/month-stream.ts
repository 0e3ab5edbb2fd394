import type { JsonObject } from "../events/event.ts";
import { encodeEnvelope } from "../oslo/envelope.ts";
import { maxBodyBytes } from "../oslo/notification.ts";
import type { FaultSwitch } from "./fault-switch.ts";
import { type Month, resourceKey, type SimResource } from "./month.ts";
import type { RenderInput } from "./notification-context.ts";
import type { NotificationLine } from "./notification-line.ts";
import { novaVersionedMessage } from "./nova-notification.ts";
import { Prng } from "./prng.ts";
import { renderMessage, renderResource } from "./render-step.ts";

/** The month as the bus would carry it, and what the switches did to which resource. */
export interface MonthStream {
  published: NotificationLine[];
  held: NotificationLine[];
  /** Resource key `type/id` to the switches that touched it. */
  marks: Map<string, Set<FaultSwitch>>;
}

/** A notification on its way to the bus; the rendered message is not kept, only its body. */
interface Item {
  resource: SimResource;
  input: RenderInput;
  billable: boolean;
  line: NotificationLine;
}

/**
 * Orders the month's notifications by their instants and applies the fault switches (spec 2, Fault
 * switches). Switches change the bus only; each draws from its own seeded stream, so one switch never
 * changes what another picks or what the month is.
 */
export function monthStream(month: Month, faults: readonly FaultSwitch[]): MonthStream {
  const tenants = new Map(month.tenants.map((t) => [t.project_id, t]));
  const from = Date.parse(month.period.from);
  const marks = new Map<string, Set<FaultSwitch>>();
  const mark = (resource: SimResource, fault: FaultSwitch) => {
    const key = resourceKey(resource);
    const set = marks.get(key) ?? new Set<FaultSwitch>();
    set.add(fault);
    marks.set(key, set);
  };
  const on = (fault: FaultSwitch) => faults.includes(fault);

  const sortable: { item: Item; at: number; micros: number; r: number; s: number }[] = [];
  month.resources.forEach((resource, r) => {
    renderResource(resource, tenants).forEach((rendered, s) => {
      const step = rendered.input.step;
      if (on("missing-create") && resource.pre_existing && step.at < from) return;
      const line = {
        exchange: rendered.exchange,
        routing_key: rendered.routing_key,
        body: encodeEnvelope(rendered.message),
      };
      sortable.push({
        item: { resource, input: rendered.input, billable: step.billable, line },
        at: step.at,
        micros: step.micros,
        r,
        s,
      });
    });
  });
  sortable.sort((a, b) => a.at - b.at || a.micros - b.micros || a.r - b.r || a.s - b.s);
  let items = sortable.map((x) => x.item);

  for (const resource of month.resources) {
    if (!resource.pre_existing) continue;
    if (on("missing-create")) mark(resource, "missing-create");
    if (on("pre-existing")) mark(resource, "pre-existing");
  }
  // With pre-existing, everything dated before the month goes out first as one burst; the instants
  // already put it first, so the order holds and a broker publisher paces only what follows.

  if (on("reordering")) items = reorder(items, month, mark);

  const held: Item[] = [];
  if (on("held-back")) {
    const rng = new Prng(month.seed, "faults:held-back");
    const kept: Item[] = [];
    for (const item of items) {
      if (item.billable && rng.chance(1 / 20)) {
        held.push(item);
        mark(item.resource, "held-back");
      } else kept.push(item);
    }
    items = kept;
  }

  if (on("refused-shapes")) items = withRefusedTwins(items, month.seed, mark);
  let lines = items.map((i) => i.line);
  if (on("duplicates")) lines = withDuplicates(items, month.seed, mark);
  return { published: lines, held: held.map((i) => i.line), marks };
}

/** One in ten resources with at least two billable transitions: its first goes out directly behind its second. */
function reorder(items: Item[], month: Month, mark: (r: SimResource, f: FaultSwitch) => void): Item[] {
  const rng = new Prng(month.seed, "faults:reordering");
  const billableAt = new Map<SimResource, number[]>();
  items.forEach((item, index) => {
    if (!item.billable) return;
    const list = billableAt.get(item.resource) ?? [];
    list.push(index);
    billableAt.set(item.resource, list);
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
  const out: Item[] = [];
  items.forEach((item, index) => {
    if (moved.has(index)) return;
    out.push(item);
    const follower = moves.get(index);
    const followerItem = follower === undefined ? undefined : items[follower];
    if (followerItem !== undefined) out.push(followerItem);
  });
  return out;
}

/**
 * Per billable transition one draw in 400: one draw gives an oversized twin (past 1 MiB), two a
 * truncated one (inner message cut in half), twenty a versioned one (compute only). Each twin carries a
 * fresh message id and follows its original on the same exchange.
 */
function withRefusedTwins(
  items: Item[],
  seed: number,
  mark: (r: SimResource, f: FaultSwitch) => void,
): Item[] {
  const rng = new Prng(seed, "faults:refused-shapes");
  const out: Item[] = [];
  for (const item of items) {
    out.push(item);
    if (!item.billable) continue;
    const draw = rng.int(0, 399);
    const twin = refusedTwin(item, draw, rng);
    if (twin === null) continue;
    out.push({ ...item, billable: false, line: { ...item.line, body: twin } });
    mark(item.resource, "refused-shapes");
  }
  return out;
}

function refusedTwin(item: Item, draw: number, rng: Prng): string | null {
  const message: JsonObject = { ...renderMessage(item.input), message_id: rng.uuid() };
  if (draw === 0) {
    const payload = message.payload as JsonObject;
    message.payload = { ...payload, metadata: { blob: "x".repeat(maxBodyBytes) } };
    return encodeEnvelope(message);
  }
  if (draw <= 2) {
    const inner = JSON.stringify(message);
    return JSON.stringify({
      "oslo.version": "2.0",
      "oslo.message": inner.slice(0, Math.floor(inner.length / 2)),
    });
  }
  if (draw <= 22 && item.resource.resource_type === "instance") {
    return encodeEnvelope(novaVersionedMessage(item.input, String(message.message_id)));
  }
  return null;
}

/** One in 20 billable transitions is published again, byte for byte, ten notifications later (or after the last). */
function withDuplicates(
  items: Item[],
  seed: number,
  mark: (r: SimResource, f: FaultSwitch) => void,
): NotificationLine[] {
  const rng = new Prng(seed, "faults:duplicates");
  const due = new Map<number, NotificationLine[]>();
  const last = items.length - 1;
  items.forEach((item, index) => {
    if (!item.billable || !rng.chance(1 / 20)) return;
    const at = Math.min(index + 10, last);
    const list = due.get(at) ?? [];
    list.push(item.line);
    due.set(at, list);
    mark(item.resource, "duplicates");
  });
  const out: NotificationLine[] = [];
  items.forEach((item, index) => {
    out.push(item.line);
    for (const copy of due.get(index) ?? []) out.push(copy);
  });
  return out;
}
