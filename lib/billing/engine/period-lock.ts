import type { Sql } from "postgres";
import { UsageError } from "../../foundation/cli/usage-error.ts";
import { abandonRunning } from "./store/runs.ts";

const lockSpace = 7_310_401;

/**
 * Runs `work` holding the period's session advisory lock on a reserved connection, so that two
 * engines never run, correct or finalize one period at once, across processes (decision 404). A run
 * row still `running` without the lock held belongs to a process that died: it is marked failed first.
 */
export async function withPeriodLock<T>(sql: Sql, period: string, work: () => Promise<T>): Promise<T> {
  const connection = await sql.reserve();
  try {
    const [row] = await connection<{ locked: boolean }[]>`
      select pg_try_advisory_lock(${lockSpace}, hashtext(${period})) as locked`;
    if (!row?.locked) {
      throw new UsageError(
        `another run of this period is in progress: ${period} is being run, corrected or finalized`,
      );
    }
    try {
      await abandonRunning(sql, period);
      return await work();
    } finally {
      await connection`select pg_advisory_unlock(${lockSpace}, hashtext(${period}))`;
    }
  } finally {
    connection.release();
  }
}
