import type { Sql } from "postgres";

/** Months before and after the current one that `migrate` creates, so ordinary traffic never waits. */
const monthsBehind = 1;
const monthsAhead = 3;

/** `YYYY-MM` of an instant: the month whose partition holds it. */
function monthOf(instant: string): string {
  return instant.slice(0, 7);
}

function monthStart(year: number, month: number): string {
  return new Date(Date.UTC(year, month, 1)).toISOString();
}

/** Creates the partitions around `now` (a no-op under TimescaleDB); returns the months ensured. */
export async function ensureEventPartitionsAhead(sql: Sql, now: Date): Promise<string[]> {
  const months: string[] = [];
  for (let offset = -monthsBehind; offset <= monthsAhead; offset++) {
    months.push(monthStart(now.getUTCFullYear(), now.getUTCMonth() + offset));
  }
  await ensureEventPartitions(sql, months);
  return months.map(monthOf);
}

/**
 * Remembers the months known to have a partition so that ingest asks the database only for a month it
 * has not seen. Partitions are never dropped, so a month once seen stays valid.
 */
export class EventPartitions {
  readonly #known = new Set<string>();

  constructor(private readonly sql: Sql) {}

  /**
   * Runs outside the ingest transaction, each creation in its own autocommit statement: creating a
   * partition locks the parent table, and holding that lock for a whole batch would serialise ingest.
   * An empty partition left by a batch that later rolls back is harmless.
   */
  async ensureFor(instants: Iterable<string>): Promise<void> {
    const missing = new Set<string>();
    for (const instant of instants) {
      const month = monthOf(instant);
      if (!this.#known.has(month)) missing.add(month);
    }
    if (missing.size === 0) return;
    await ensureEventPartitions(
      this.sql,
      [...missing].map((m) => `${m}-01T00:00:00.000Z`),
    );
    for (const month of missing) this.#known.add(month);
  }
}

async function ensureEventPartitions(sql: Sql, instants: string[]): Promise<void> {
  for (const instant of instants) {
    await sql`select svc_ensure_events_partition(${instant}::timestamptz)`;
  }
}
