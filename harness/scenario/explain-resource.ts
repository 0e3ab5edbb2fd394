import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { billFigures } from "../../lib/billing/compare/compare-oracle.ts";
import { readRatedCsv } from "../../lib/billing/compare/rated-csv.ts";
import type { CanonicalEvent } from "../../lib/billing/events/event.ts";
import { type MeteredResource, meterResource } from "../../lib/billing/metering/meter-resource.ts";
import type { OracleInterval } from "../../lib/billing/simulator/oracle.ts";
import { oracleBill } from "../../lib/billing/simulator/oracle-bill/oracle-bill.ts";
import { readOraclePrices } from "../../lib/billing/simulator/oracle-bill/oracle-prices.ts";
import { readOracle } from "../../lib/billing/simulator/oracle-document.ts";
import { UsageError } from "../../lib/foundation/cli/usage-error.ts";
import { compare } from "../../lib/foundation/collections/compare.ts";
import type { JsonObject } from "../../lib/foundation/json/json-value.ts";
import { parsePeriod } from "../../lib/foundation/time/period.ts";
import type { RunAsked } from "./run-scenario.ts";
import { syncEventsPath } from "./sync-stage.ts";

// Members in name order: a sync and a notification list the same size in different orders.
const size = (value: JsonObject | null) =>
  value === null
    ? "-"
    : Object.entries(value)
        .sort(([a], [b]) => (a < b ? -1 : 1))
        .map(([k, v]) => `${k}=${typeof v === "object" ? JSON.stringify(v) : String(v)}`)
        .join(" ");

const intervalText = (i: {
  from: string;
  to: string;
  state: string | null;
  project_id: string;
  size: JsonObject | null;
}) => `[${i.from}, ${i.to}) ${i.state ?? "-"} ${i.project_id} ${size(i.size)}`;

/** Pairs two lists line by line: `both` where they agree, else each side on its own line. */
function sideBySide(a: readonly string[], b: readonly string[], names: [string, string]): string[] {
  const width = Math.max(names[0].length, names[1].length, 4);
  const out: string[] = [];
  for (let i = 0; i < Math.max(a.length, b.length); i++) {
    const x = a[i];
    const y = b[i];
    if (x !== undefined && x === y) out.push(`  ${"both".padEnd(width)}  ${x}`);
    else {
      out.push(`  ${names[0].padEnd(width)}  ${x ?? "(none)"}`);
      out.push(`  ${names[1].padEnd(width)}  ${y ?? "(none)"}   <- differs`);
    }
  }
  return out;
}

function readLines(path: string): string[] {
  return existsSync(path)
    ? readFileSync(path, "utf8")
        .split("\n")
        .filter((l) => l !== "")
    : [];
}

function ratedLines(dir: string, resource: string): string[] {
  const path = join(dir, "rated.csv");
  if (!existsSync(path)) return [];
  return readRatedCsv(readFileSync(path, "utf8"))
    .filter((r) => `${r.resource_type}/${r.resource_id}` === resource)
    .map((r) => `${r.project_id}/${r.dimension} ${r.quantity} x ${r.unit_price} = ${r.amount}`);
}

/**
 * `bun scenario explain --out DIR --resource ID`: one resource of a kept scenario month, so that a
 * billing engineer sees why a number is what it is. Its events as delivered (marking the late ones,
 * repeats and those a sync wrote), the intervals the engine's fold meters from them beside the oracle's, and the rated lines of
 * each export beside what the oracle's intervals rate to. Reads only the artefacts in DIR.
 */
export function explainResource(dir: string, id: string, pricingPath: string): string[] {
  const oraclePath = join(dir, "month/oracle.json");
  if (!existsSync(oraclePath))
    throw new UsageError(`${dir} holds no scenario month: run bun scenario <name> --out ${dir} first`);
  // After syncs, the oracle with the listeners and pools they booked is the one compare read.
  const booked = join(dir, "month/oracle-booked.json");
  const oracle = readOracle(readFileSync(existsSync(booked) ? booked : oraclePath, "utf8"));
  const period = parsePeriod(oracle.period_from.slice(0, 7));
  const lines = readLines(join(dir, "month/events.jsonl"));
  const heldCount = readLines(join(dir, "month/held-back.jsonl")).length;
  const resultPath = join(dir, "result.json");
  const asked = existsSync(resultPath)
    ? (JSON.parse(readFileSync(resultPath, "utf8")) as Partial<RunAsked>)
    : {};
  const all = [
    ...lines.map((l, i) => {
      const event = JSON.parse(l) as CanonicalEvent;
      const held = i >= lines.length - heldCount;
      return { event, held, dropped: event.event_id === asked.dropEvent, synced: false };
    }),
    ...readLines(syncEventsPath(dir)).map((l) => ({
      event: JSON.parse(l) as CanonicalEvent,
      held: false,
      dropped: false,
      synced: true,
    })),
  ];
  const matches = (type: string, rid: string) => id === rid || id === `${type}/${rid}`;
  const truth = oracle.resources.find((r) => matches(r.resource_type, r.resource_id));
  const mine = all.filter(({ event }) => matches(event.resource_type, event.resource_id));
  const first = mine[0]?.event;
  if (truth === undefined && first === undefined)
    throw new UsageError(`no resource ${id} in the month in ${dir}`);
  const resource =
    truth !== undefined
      ? `${truth.resource_type}/${truth.resource_id}`
      : `${first?.resource_type}/${first?.resource_id}`;

  const out = [
    `${resource} in the ${period.name} month of ${dir}` +
      (truth === undefined
        ? ": the oracle does not know it"
        : `: workload ${truth.workload}${truth.faults.length > 0 ? `, marked ${truth.faults.join(", ")}` : ""}`),
    "",
    `events (${mine.length}, in history order; late: delivered after the month was finalized)`,
  ];
  const seen = new Set<string>();
  const ordered = [...mine].sort((a, b) => compare(a.event.timestamp, b.event.timestamp));
  for (const { event, held, dropped, synced } of ordered) {
    const notes = [
      held ? "late" : "",
      synced ? "written by a sync" : "",
      seen.has(event.event_id) ? "repeat (same event id)" : "",
      dropped ? "dropped on purpose: never delivered" : "",
    ].filter((n) => n !== "");
    seen.add(event.event_id);
    const payload = event.payload as { state?: string; size?: JsonObject };
    out.push(
      `  ${event.timestamp} ${event.event_type} ${event.project_id} state=${payload.state ?? "-"} ${size(payload.size ?? null)}${notes.length > 0 ? ` [${notes.join(", ")}]` : ""} (${event.event_id})`,
    );
  }

  const meter = (events: readonly CanonicalEvent[]): MeteredResource | null =>
    first === undefined ? null : meterResource(first, events, period);
  const oracleIntervals = (truth?.intervals ?? []).map((i: OracleInterval) => intervalText(i));
  const delivered = mine.filter((m) => !m.dropped);
  const metered = meter(delivered.map((m) => m.event));
  out.push("", "intervals in the month: the engine's fold of the delivered events, and the oracle's");
  out.push(...sideBySide((metered?.intervals ?? []).map(intervalText), oracleIntervals, ["fold", "oracle"]));
  if (metered?.starts_without_create)
    out.push("  the history starts without a create: the engine warns history_starts_without_create");
  if (delivered.some((m) => m.held)) {
    const finalized = meter(delivered.filter((m) => !m.held).map((m) => m.event));
    out.push("", "intervals the finalized run metered, before the late events arrived");
    out.push(
      ...sideBySide((finalized?.intervals ?? []).map(intervalText), oracleIntervals, ["finalized", "oracle"]),
    );
  }

  const expected =
    billFigures(oracleBill(oracle, readOraclePrices(readFileSync(pricingPath, "utf8")))).get(resource) ??
    new Map();
  const oracleRated = [...expected]
    .sort(([a], [b]) => (a < b ? -1 : 1))
    .map(([line, f]) => `${line} ${f.quantity} = ${f.amount}`);
  for (const [name, sub] of [
    ["finalized", "export/finalized"],
    ["corrected", "export/corrected"],
  ] as const) {
    if (!existsSync(join(dir, sub, "rated.csv"))) continue;
    const exported = ratedLines(join(dir, sub), resource).map((l) => l.replace(/ x \S+ = /, " = "));
    out.push(
      "",
      `rated lines of the ${name} bill (${sub}/rated.csv) and what the oracle's intervals rate to`,
    );
    out.push(...sideBySide(exported, oracleRated, [name, "oracle"]));
    const prices = ratedLines(join(dir, sub), resource);
    if (prices.length > 0) out.push(`  priced: ${prices.join("; ")}`);
  }
  return out;
}
