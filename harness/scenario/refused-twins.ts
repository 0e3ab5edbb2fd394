/**
 * The refused-shapes twins of a month's notification lines, told apart by their shape alone rather
 * than by the mapping the collector runs (decision 521): a body past 1 MiB is oversized, an inner
 * message that is not JSON is truncated, a nova payload with `nova_object.name` is versioned. What the
 * collector counted must be what the rest of the month makes by the one mapping plus exactly these.
 */

import { maxBodyBytes } from "../../lib/billing/oslo/notification.ts";
import type { NotificationLine } from "../../lib/billing/simulator/notification-line.ts";
import { deliveryOutcomes } from "../collector/simulated-month.ts";

interface TwinCounts {
  oversized: number;
  truncated: number;
  versioned: number;
}

type Shape = keyof TwinCounts | "regular";

function shapeOf(line: NotificationLine): Shape {
  if (Buffer.byteLength(line.body) > maxBodyBytes) return "oversized";
  let inner: unknown;
  try {
    inner = JSON.parse((JSON.parse(line.body) as { "oslo.message": string })["oslo.message"]);
  } catch {
    return "truncated";
  }
  const payload = (inner as { payload?: unknown }).payload;
  return typeof payload === "object" && payload !== null && "nova_object.name" in payload
    ? "versioned"
    : "regular";
}

/** The twins among `lines`, and what the one mapping makes of the other lines. */
export function refusedTwins(
  lines: readonly NotificationLine[],
  options: { cloud: string; exchanges: readonly string[] },
): { twins: TwinCounts; withoutTwins: { consumed: number; skipped: number; unparseable: number } } {
  const twins: TwinCounts = { oversized: 0, truncated: 0, versioned: 0 };
  const regular: NotificationLine[] = [];
  for (const line of lines) {
    const shape = shapeOf(line);
    if (shape === "regular") regular.push(line);
    else if (options.exchanges.includes(line.exchange)) twins[shape]++;
  }
  return { twins, withoutTwins: deliveryOutcomes(regular, options).expected };
}
