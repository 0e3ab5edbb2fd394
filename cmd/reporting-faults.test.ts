import { describe, expect, test } from "bun:test";
import type { Sql } from "postgres";
import { contractFetch } from "../harness/reporting/contract-fetch.ts";
import { ingestWorkload, type WorkloadEvent } from "../harness/reporting/ingest-workload.ts";
import { reportingDatabaseOfFile } from "../harness/reporting/reporting-database.ts";
import { startReportingProcess } from "../harness/reporting/reporting-process.ts";
import { issueIngestCredential } from "../lib/billing/reporting/auth/credential-store.ts";
import { rebuildProjection } from "../lib/billing/reporting/projection/rebuild.ts";

const db = reportingDatabaseOfFile(2);

/** Every backend of the test database but the caller's own: what an operator's terminate does. */
async function terminateBackends(sql: Sql): Promise<number> {
  const [row] = await sql<{ n: number }[]>`
    select count(pg_terminate_backend(pid))::int as n from pg_stat_activity
    where datname = current_database() and pid <> pg_backend_pid()`;
  return row?.n ?? 0;
}

/** The projection as rows, without the write instant, in key order. */
async function projection(sql: Sql) {
  return await sql`
    select cloud, resource_type, resource_id, platform, project_id, state, size, created_at, deleted_at,
      last_event_timestamp, last_event_rank, last_event_id, event_count
    from current_resources order by cloud, resource_type, resource_id`;
}

describe("the reporting process while its database backends are terminated under load", () => {
  test("stays up, answers 503 then 200, loses nothing after retries, and its projection equals a rebuild", async () => {
    const { secret } = await issueIngestCredential(db.db, {
      platform: "platform_a",
      cloud: "bench-cloud",
      actor: "test",
    });
    const server = await startReportingProcess({ SVC_REPORTING_DB_URL: db.url });
    const events = ingestWorkload(16_000, 11);
    // One batch in ten repeats events of the batch before it, as a collector's retries do.
    const batches: WorkloadEvent[][] = [];
    for (let i = 0; i < events.length; i += 500) {
      const batch = events.slice(i, i + 500);
      if (batches.length % 10 === 9) batch.push(...(batches.at(-1) ?? []).slice(0, 50));
      batches.push(batch);
    }
    const statuses = new Map<number, number>();
    let stored = 0;
    let next = 0;
    let done = false;
    try {
      const clients = Array.from({ length: 4 }, async () => {
        while (next < batches.length) {
          const body = JSON.stringify(batches[next++]);
          for (;;) {
            // Checked against the served contract, the 503s of the fault too (decision 140).
            const res = await contractFetch(`${server.base}/api/v1/events`, {
              method: "POST",
              headers: { authorization: `Bearer ${secret}`, "content-type": "application/json" },
              body,
            });
            statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
            if (res.status === 200) {
              const result = res.json as { accepted: number; rejected: unknown[] };
              expect(result.rejected).toEqual([]);
              stored += result.accepted;
              break;
            }
            expect(res.status).toBe(503);
            await Bun.sleep(50);
          }
        }
      });
      const terminations = (async () => {
        for (let round = 0; round < 5 && !done; round++) {
          // Wait for some progress, so each termination lands on requests in flight.
          const before = stored;
          while (stored === before && !done) await Bun.sleep(20);
          await terminateBackends(db.sql);
        }
      })();
      await Promise.all(clients);
      done = true;
      await terminations;

      expect(server.running()).toBe(true);
      expect(statuses.get(503) ?? 0).toBeGreaterThan(0);
      expect([...statuses.keys()].sort()).toEqual([200, 503]);
      // Stored exactly once: every distinct event, the repeats and the retries of a batch whose commit
      // the termination hid only as duplicates.
      const [count] = await db.sql<{ n: number }[]>`select count(*)::int as n from events`;
      expect(count?.n).toBe(events.length);

      const folded = await projection(db.sql);
      await db.sql`truncate current_resources`;
      await rebuildProjection(db.sql, {});
      expect(await projection(db.sql)).toEqual(folded);
    } finally {
      done = true;
      const out = await server.stop();
      expect(out.stderr).toBe("");
      expect(out.code).toBe(0);
    }
  }, 120_000);
});
