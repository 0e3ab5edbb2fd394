import { readdirSync } from "node:fs";
import { join } from "node:path";
import postgres from "postgres";
import { startPrivateServer } from "../process/private-server.ts";
import { runCommand } from "../process/run-command.ts";
import { systemUser } from "../process/system-user.ts";
import { uniqueName } from "./unique-name.ts";

/** A PostgreSQL server for tests: private (started here) or external (`SVC_TEST_PG_URL`). */
export interface PostgresService {
  /** Superuser URL of the `postgres` database. */
  readonly url: string;
  readonly external: boolean;
  /** Its private dir (undefined when external). */
  readonly dir: string | undefined;
  /** Live processes of the private server. */
  processes(): number[];
  /** Creates a fresh, empty database and returns its URL; dropped at `stop()` on an external server. */
  createDatabase(name?: string): Promise<string>;
  /** Drops a database made by `createDatabase` (its URL), closing its sessions; no-op when gone. */
  dropDatabase(url: string): Promise<void>;
  stop(): Promise<void>;
}

/** The newest /usr/lib/postgresql/<version>/bin. */
export function postgresBinDir(base = "/usr/lib/postgresql"): string {
  const versions = readdirSync(base)
    .filter((name) => /^\d+$/.test(name))
    .map(Number)
    .sort((a, b) => b - a);
  if (versions[0] === undefined)
    throw new Error(`no PostgreSQL under ${base}: install postgresql-15 or newer`);
  return join(base, String(versions[0]), "bin");
}

function databaseUrl(serverUrl: string, database: string): string {
  const url = new URL(serverUrl);
  url.pathname = `/${database}`;
  return url.toString();
}

function quietClient(url: string): postgres.Sql {
  return postgres(url, { max: 1, connect_timeout: 5, idle_timeout: 5, onnotice: () => {} });
}

/** What a PostgresService stops and reports on: a private server, a Patroni cluster, or nothing. */
export interface PostgresServer {
  dir: string | undefined;
  processes(): number[];
  stop(): Promise<void>;
}

/** The service on a server reached at `url` (a superuser URL of its `postgres` database). */
export function postgresServiceOn(url: string, external: boolean, server: PostgresServer): PostgresService {
  const admin = quietClient(url);
  const created: string[] = [];
  return {
    url,
    external,
    dir: server.dir,
    processes: () => server.processes(),
    async createDatabase(name) {
      const database = name ?? uniqueName("svc_test");
      if (!/^[a-z_][a-z0-9_]{0,62}$/.test(database))
        throw new Error(`not a plain database name: ${database}`);
      await admin.unsafe(`create database "${database}"`);
      created.push(database);
      return databaseUrl(url, database);
    },
    async dropDatabase(databaseUrl) {
      const database = decodeURIComponent(new URL(databaseUrl).pathname.slice(1));
      const index = created.indexOf(database);
      if (index < 0) throw new Error(`${database} was not made by createDatabase`);
      created.splice(index, 1);
      await admin.unsafe(`drop database if exists "${database}" with (force)`);
    },
    async stop() {
      if (external) {
        for (const database of created.splice(0))
          await admin.unsafe(`drop database if exists "${database}" with (force)`);
      }
      await admin.end({ timeout: 5 });
      await server.stop();
    },
  };
}

// Speed over durability: test data is thrown away, so nothing needs to survive a crash.
const testSettings = [
  "fsync=off",
  "synchronous_commit=off",
  "full_page_writes=off",
  "wal_level=minimal",
  "max_wal_senders=0",
  "max_connections=200",
  "listen_addresses=127.0.0.1",
];

async function startPrivate(settings: readonly string[]): Promise<PostgresService> {
  const bin = postgresBinDir();
  const user = systemUser("postgres");
  const server = await startPrivateServer("postgres", async (dir) => {
    const data = dir.sub("data", { owner: user });
    const sockets = dir.sub("sockets", { owner: user, mode: 0o755 });
    // initdb and postgres refuse to run as root.
    await runCommand(
      "setpriv",
      [
        `--reuid=${user.uid}`,
        `--regid=${user.gid}`,
        "--init-groups",
        "--",
        join(bin, "initdb"),
        "-D",
        data,
        "-U",
        "postgres",
        "-A",
        "trust",
        "-E",
        "UTF8",
        "--locale=C.UTF-8",
        "--no-sync",
        "--no-instructions",
      ],
      // At a load of 25 to 30 on two cores initdb was seen to pass 60 s.
      { cwd: dir.path, timeoutMs: 180_000 },
    );
    return {
      daemon: (port) => ({
        name: "postgres",
        command: join(bin, "postgres"),
        args: [
          "-D",
          data,
          "-p",
          String(port),
          "-k",
          sockets,
          ...[...testSettings, ...settings].flatMap((s) => ["-c", s]),
        ],
        logFile: join(dir.path, "postgres.log"),
        cwd: dir.path,
        user,
        stopSignal: "SIGINT",
      }),
      url: (port) => `postgres://postgres@127.0.0.1:${port}/postgres`,
      async ready(url) {
        const probe = quietClient(url);
        try {
          await probe`select 1`;
          return true;
        } finally {
          await probe.end({ timeout: 1 });
        }
      },
    };
  });
  return postgresServiceOn(server.url, false, server);
}

/**
 * Starts a private server, or uses `SVC_TEST_PG_URL` when it is set. `settings` (`name=value`) are
 * added to the private server's command line, after the test settings (a bench preloads
 * pg_stat_statements); an external server is used as it is.
 */
export async function startPostgres(
  env: Record<string, string | undefined> = process.env,
  settings: readonly string[] = [],
): Promise<PostgresService> {
  const external = env.SVC_TEST_PG_URL;
  if (external !== undefined && external !== "")
    return postgresServiceOn(external, true, { dir: undefined, processes: () => [], stop: async () => {} });
  return startPrivate(settings);
}
