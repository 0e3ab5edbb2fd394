/**
 * What every scenario stack starts the same way, one server or a cluster: the run's two databases
 * migrated and credentialed by our programs, and the Reporting API as a process of its own.
 */
import { join } from "node:path";
import { freePort, releasePort } from "../process/free-port.ts";
import { retryOnPortInUse } from "../process/port-in-use-error.ts";
import { RestartableDaemon } from "../process/restartable-daemon.ts";
import type { PostgresService } from "../services/postgres.ts";
import { uniqueName } from "../services/unique-name.ts";
import type { Programs } from "./programs.ts";

const root = join(import.meta.dir, "../..");

/** Variables a person's shell may carry (from `scenario up`) that our programs must not read here. */
function withoutInherited(env: Record<string, string>): Record<string, string | undefined> {
  const cleared = Object.fromEntries(
    Object.keys(process.env)
      .filter((name) => name.startsWith("SVC_") || name.startsWith("OVN_"))
      .map((name) => [name, undefined]),
  );
  return { ...cleared, ...env };
}

/** The Reporting API as its own process on a free port, restartable there (its URL stays right across an outage). */
export async function startReporting(
  programs: Programs,
  env: Record<string, string>,
  logFile: string = programs.logOf("reporting"),
): Promise<{ url: string; daemon: RestartableDaemon; port: number }> {
  return retryOnPortInUse(async () => {
    const port = await freePort();
    const url = `http://127.0.0.1:${port}`;
    const daemon = new RestartableDaemon(
      {
        name: "reporting",
        command: "bun",
        args: [join(root, "cmd/reporting.ts")],
        logFile,
        env: withoutInherited({ ...env, SVC_REPORTING_HTTP_PORT: String(port) }),
      },
      async () => (await fetch(`${url}/readyz`)).ok,
      30_000,
    );
    try {
      await daemon.start();
    } catch (error) {
      releasePort(port);
      throw error;
    }
    return { url, daemon, port };
  });
}

/** The run's two databases, migrated by our programs, and the credentials issued on them. */
export interface ScenarioDatabases {
  reportingDbUrl: string;
  engineDbUrl: string;
  /** The ingest credential of (platform_a, cloud), as the collector would hold it. */
  ingestSecret: string;
  /** With `admin`: an API token of role admin, issued with `reporting-admin token issue`. */
  adminToken?: string;
}

/**
 * Creates the reporting and engine databases on `postgres`, migrates them with `reporting-admin
 * migrate` and `engine migrate`, and issues the ingest credential for `cloud` (and an admin token).
 */
export async function prepareDatabases(options: {
  programs: Programs;
  postgres: PostgresService;
  cloud: string;
  admin: boolean;
}): Promise<ScenarioDatabases> {
  const { programs, postgres } = options;
  const [reportingDbUrl, engineDbUrl] = await Promise.all([
    postgres.createDatabase(uniqueName("scenario_reporting")),
    postgres.createDatabase(uniqueName("scenario_engine")),
  ]);
  await Promise.all([
    programs.run("reporting-admin", ["migrate"], { SVC_REPORTING_DB_URL: reportingDbUrl }),
    programs.run("engine", ["migrate"], { SVC_ENGINE_DB_URL: engineDbUrl }),
  ]);
  const [issued] = await programs.run(
    "reporting-admin",
    ["ingest", "issue", "--platform", "platform_a", "--cloud", options.cloud, "--label", "scenario"],
    { SVC_REPORTING_DB_URL: reportingDbUrl },
    { secretOutput: true },
  );
  const { secret: ingestSecret } = JSON.parse(issued ?? "{}") as { secret: string };
  if (!options.admin) return { reportingDbUrl, engineDbUrl, ingestSecret };
  const [token] = await programs.run(
    "reporting-admin",
    ["token", "issue", "--role", "admin", "--label", "scenario"],
    { SVC_REPORTING_DB_URL: reportingDbUrl },
    { secretOutput: true },
  );
  const adminToken = (JSON.parse(token ?? "{}") as { secret: string }).secret;
  return { reportingDbUrl, engineDbUrl, ingestSecret, adminToken };
}
