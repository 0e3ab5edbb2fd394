/**
 * The real Reporting API as its own process (`cmd/reporting.ts`) on a fresh migrated database, with an
 * ingest credential for (`platform_a`, `cloud`), for the collector's tests and bench. It can be
 * stopped and started again on the same port, as an outage would.
 */
import { join } from "node:path";
import { issueIngestCredential } from "../../lib/billing/reporting/auth/credential-store.ts";
import { compare } from "../../lib/foundation/collections/compare.ts";
import { serviceAllocatorEnv } from "../../lib/foundation/process/allocator-env.ts";
import { freePort } from "../process/free-port.ts";
import { RestartableDaemon } from "../process/restartable-daemon.ts";
import { type ReportingTestDatabase, reportingTestDatabase } from "../reporting/reporting-database.ts";
import { TcpGate } from "../reporting/tcp-gate.ts";

export interface ReportingApi {
  url: string;
  token: string;
  cloud: string;
  db: ReportingTestDatabase;
  daemon: RestartableDaemon;
  /** With `databaseGate`: the TCP gate between the API and its database, to cut the database away. */
  gate: TcpGate | undefined;
  /** Every stored row's (event_id, timestamp), in `byEventKey` order: a duplicate would show twice. */
  storedEvents(): Promise<{ event_id: string; timestamp: string }[]>;
  stop(): Promise<void>;
}

/** Order of (event_id, timestamp) pairs, in code units, so lists from two sources compare equal. */
export function byEventKey(
  a: { event_id: string; timestamp: string },
  b: { event_id: string; timestamp: string },
) {
  return compare(a.event_id, b.event_id) || compare(a.timestamp, b.timestamp);
}

const root = join(import.meta.dir, "../..");

export async function startReportingApi(
  dir: string,
  options: { cloud?: string; databaseGate?: boolean } = {},
): Promise<ReportingApi> {
  const cloud = options.cloud ?? "cloud-1";
  const db = await reportingTestDatabase(2);
  let gate: TcpGate | undefined;
  try {
    const credential = await issueIngestCredential(db.db, {
      platform: "platform_a",
      cloud,
      actor: "collector-test",
    });
    const port = await freePort();
    const url = `http://127.0.0.1:${port}`;
    const dbUrl = new URL(db.url);
    if (options.databaseGate) {
      gate = new TcpGate(await freePort(), { hostname: dbUrl.hostname, port: Number(dbUrl.port || 5432) });
      gate.open();
      dbUrl.port = String(gate.port);
    }
    const daemon = new RestartableDaemon(
      {
        name: "reporting",
        command: process.execPath,
        args: [join(root, "cmd/reporting.ts")],
        logFile: join(dir, `reporting-${port}.log`),
        cwd: root,
        env: {
          ...serviceAllocatorEnv(),
          SVC_REPORTING_DB_URL: dbUrl.toString(),
          SVC_REPORTING_HTTP_PORT: String(port),
          SVC_REPORTING_INTERNAL_TOKEN: "collector-test-internal",
          SVC_REPORTING_DB_MAX_CONNS: "8",
          SVC_LOG_LEVEL: "WARN",
        },
      },
      async () => (await fetch(`${url}/readyz`).catch(() => null))?.status === 200,
      30_000,
    );
    await daemon.start();
    return {
      url,
      token: credential.secret,
      cloud,
      db,
      daemon,
      gate,
      async storedEvents() {
        const rows = await db.sql<{ event_id: string; timestamp: Date | string }[]>`
          select event_id, timestamp from events`;
        return rows
          .map((r) => ({ event_id: r.event_id, timestamp: new Date(r.timestamp).toISOString() }))
          .sort(byEventKey);
      },
      async stop() {
        await daemon.stop();
        gate?.shut();
        await db.dispose();
      },
    };
  } catch (error) {
    gate?.shut();
    await db.dispose();
    throw error;
  }
}
