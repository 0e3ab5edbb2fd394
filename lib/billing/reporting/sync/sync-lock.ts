import type { ReservedSql, Sql } from "postgres";
import { ConflictError } from "../../../foundation/errors/svc-error.ts";

/** Advisory lock space of sync runs, apart from resource locks (one-key) and relation writes (7310, 1). */
const lockSpace = 7_310_170;

/**
 * Runs `work` holding the cloud's session advisory lock on a reserved connection: the one pool
 * connection a running sync holds (docs/reconciliation.md#configuration). A second run of the cloud, in this process or
 * another, is refused with 409 at once. A `sync_runs` row still `running` when the lock is taken
 * belongs to a process that ended mid-run: it is marked failed first, so its row never blocks the cloud.
 */
export async function withSyncLock<T>(
  sql: Sql,
  cloud: string,
  work: (connection: ReservedSql) => Promise<T>,
): Promise<T> {
  const connection = await sql.reserve();
  try {
    const [row] = await connection<{ locked: boolean }[]>`
      select pg_try_advisory_lock(${lockSpace}, hashtext(${cloud})) as locked`;
    if (!row?.locked) throw new ConflictError(`another sync of cloud ${cloud} is running`);
    try {
      await connection`update sync_runs set status = 'failed', finished_at = now(),
        error = 'abandoned: the process running it ended before it completed'
        where cloud = ${cloud} and status = 'running'`;
      return await work(connection);
    } finally {
      await connection`select pg_advisory_unlock(${lockSpace}, hashtext(${cloud}))`;
    }
  } finally {
    connection.release();
  }
}
