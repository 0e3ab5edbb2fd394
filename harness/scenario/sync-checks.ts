import type { RatedRow } from "../../lib/billing/compare/rated-csv.ts";
import type { SyncResult } from "../../lib/billing/reporting/sync/sync-run.ts";
import type { Oracle } from "../../lib/billing/simulator/oracle.ts";
import { decimal, formatMoney, sum } from "../../lib/foundation/money/decimal.ts";
import type { Check } from "./check.ts";
import type { SyncSeen } from "./sync-stage.ts";

type Kind = "created" | "updated" | "deleted";

/** Per resource type, what a sync wrote of one kind (types with none left out). */
function written(result: SyncResult, kind: Kind): Record<string, number> {
  return Object.fromEntries(
    result.resource_types.filter((t) => t[kind] > 0).map((t) => [t.resource_type, t[kind]]),
  );
}

function tally(keys: readonly string[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const k of [...keys].sort()) out[k] = (out[k] ?? 0) + 1;
  return out;
}

const text = (counts: Record<string, number>) =>
  Object.keys(counts).length === 0
    ? "none"
    : Object.entries(counts)
        .map(([type, n]) => `${type} ${n}`)
        .join(", ");

const same = (a: Record<string, number>, b: Record<string, number>) => text(a) === text(b);

const check = (ok: boolean, line: string, details: string[]): Check => ({
  status: ok ? "pass" : "fail",
  text: line,
  details: ok ? [] : details,
});

/** What an export bills for listeners and pools: the load balancers with such a line, and the amount. */
export interface BilledMembers {
  resources: string[];
  amount: string;
}

/** The listener and pool lines of an export's rated rows (pure). */
export function billedMembers(rows: readonly RatedRow[]): BilledMembers {
  const lines = rows.filter(
    (r) => r.resource_type === "loadbalancer" && (r.dimension === "listeners" || r.dimension === "pools"),
  );
  return {
    resources: [...new Set(lines.map((r) => r.resource_id))].sort(),
    amount: formatMoney(sum(lines.map((r) => decimal(r.amount)))),
  };
}

/** The oracle's resources live at `at` (an interval covers it), with their `missing-create` mark. */
function liveAt(oracle: Oracle, at: string) {
  return oracle.resources.filter((r) => r.intervals.some((i) => i.from <= at && at < i.to));
}

/**
 * What the sync stages must show (decision 540): the first sync creates exactly the resources the
 * oracle marks `missing-create` that live at its instant and renames the type of every other live
 * volume once (they were booked by type id before the cloud had size names, decision 172), deleting
 * nothing; the booking sync updates exactly the load balancers given members and writes nothing else;
 * the sync after it (past its settle window) writes nothing; ingest refuses no event of any of them; and the engine's
 * bill has listener and pool lines for exactly those load balancers (the comparison with the oracle
 * holding the booked members proves their amounts).
 */
export function syncChecks(seen: SyncSeen & { billed: BilledMembers }, oracle: Oracle): Check[] {
  const { repair, book, again, billed } = seen;
  const live = liveAt(oracle, repair.at);
  const marked = tally(live.filter((r) => r.faults.includes("missing-create")).map((r) => r.resource_type));
  const renamed = tally(
    live
      .filter((r) => r.resource_type === "volume" && !r.faults.includes("missing-create"))
      .map((r) => r.resource_type),
  );
  const given = seen.members.map((m) => m.resource_id).sort();
  const nothing = (r: SyncResult) => r.created + r.updated + r.deleted === 0;
  return [
    check(
      same(written(repair, "created"), marked) &&
        same(written(repair, "updated"), renamed) &&
        repair.deleted === 0,
      `the first sync (${repair.at}) creates the ${repair.created} missing-create resources live then (${text(marked)}) and ${repair.updated === 0 ? "updates nothing" : `names the type of ${repair.updated} volumes booked by id`}`,
      [
        `created ${text(written(repair, "created"))}, the oracle marks ${text(marked)} live at its instant`,
        `updated ${text(written(repair, "updated"))}, expected ${text(renamed)}`,
        `deleted ${text(written(repair, "deleted"))}`,
      ],
    ),
    check(
      same(written(book, "updated"), { loadbalancer: given.length }) &&
        book.created === 0 &&
        book.deleted === 0,
      `the sync at ${book.at} books listeners and pools on the ${seen.members.length} load balancers given them and writes nothing else`,
      [
        `created ${text(written(book, "created"))}, updated ${text(written(book, "updated"))}, deleted ${text(written(book, "deleted"))}`,
      ],
    ),
    check(
      nothing(again),
      `a sync again at ${again.at}, past the settle window, nothing changed, writes no event`,
      [`created ${again.created}, updated ${again.updated}, deleted ${again.deleted}`],
    ),
    check(
      decimal(billed.amount).gt(0) && billed.resources.join() === given.join(),
      `the engine bills listeners and pools on the ${billed.resources.length} load balancers from the booking sync on: ${billed.amount}`,
      [`billed on ${billed.resources.join(", ") || "none"}; given to ${given.join(", ")}`],
    ),
    check(
      [repair, book, again].every((r) => r.rejected === 0),
      `ingest refused none of the ${repair.accepted + book.accepted} events the syncs wrote`,
      [`rejected ${repair.rejected}, ${book.rejected}, ${again.rejected}: see GET /api/v1/rejected-events`],
    ),
  ];
}
