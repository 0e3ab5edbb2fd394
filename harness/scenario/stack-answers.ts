import { AMQPClient } from "@cloudamqp/amqp-client";
import postgres from "postgres";

/** Whether each service of a held stack answers: what the tests of `scenario up` and `--keep` assert. */
interface StackAnswers {
  postgres?: boolean;
  amqp?: boolean;
  ovn?: boolean;
}

async function answers(work: () => Promise<unknown>): Promise<boolean> {
  try {
    await work();
    return true;
  } catch {
    return false;
  }
}

/**
 * Asks each service given: PostgreSQL `select 1`, an AMQP connection opened and closed, `ovn-nbctl
 * show` against the northbound database. Each is true when it answered.
 */
export async function stackAnswers(urls: {
  postgres?: string;
  amqp?: string;
  ovnNb?: string;
}): Promise<StackAnswers> {
  const result: StackAnswers = {};
  if (urls.postgres !== undefined) {
    const url = urls.postgres;
    result.postgres = await answers(async () => {
      const sql = postgres(url, { max: 1, onnotice: () => {}, connect_timeout: 10 });
      try {
        await sql`select 1`;
      } finally {
        await sql.end({ timeout: 5 });
      }
    });
  }
  if (urls.amqp !== undefined) {
    const url = urls.amqp;
    result.amqp = await answers(async () => {
      const client = new AMQPClient(url);
      await client.connect();
      await client.close();
    });
  }
  if (urls.ovnNb !== undefined) {
    const nb = urls.ovnNb;
    result.ovn = await answers(async () => {
      const run = Bun.spawn(["ovn-nbctl", `--db=${nb}`, "--timeout=10", "show"], {
        stdout: "ignore",
        stderr: "ignore",
      });
      if ((await run.exited) !== 0) throw new Error("ovn-nbctl show failed");
    });
  }
  return result;
}
