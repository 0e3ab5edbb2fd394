/**
 * What netview's tests against the harness's OVN share: a silent logger, a retrying expectation,
 * clusters built from netview's own flags with quick reconnects, the operations' options and the
 * app around them. Not imported by any program.
 */
import { afterAll, beforeAll } from "bun:test";
import { readFileSync } from "node:fs";
import { Writable } from "node:stream";
import { Secret } from "../../lib/foundation/config/secret.ts";
import { createLogger } from "../../lib/foundation/log/logger.ts";
import { createRegistry } from "../../lib/foundation/metrics/registry.ts";
import { buildClusters } from "../../lib/network/netview/build-clusters.ts";
import type { ClusterSet } from "../../lib/network/netview/cluster.ts";
import { netviewApp } from "../../lib/network/netview/netview-app.ts";
import {
  type NetviewOps,
  type OpsOptions,
  registerOpsMetrics,
} from "../../lib/network/netview/netview-ops.ts";
import { parseNetviewOptions } from "../../lib/network/netview/netview-options.ts";
import type { ServerSettings } from "../../lib/network/netview/system-routes.ts";
import { parseRemotes } from "../../lib/network/ovsdb/remote.ts";
import type { OvnService } from "../services/ovn.ts";

/** The write token of the tests' operations: changes to netview's state need it (decision 362). */
export const testWriteToken = "t".repeat(40);
/** The header that carries it, with an actor for the audit. */
export const testAuthHeaders = { authorization: `Bearer ${testWriteToken}`, "x-netview-actor": "alice@ops" };

export const quietLogger = createLogger({
  service: "svc-netview-test",
  level: "ERROR",
  destination: new Writable({ write: (_c, _e, done) => done() }),
});

/** Retries `check` (an expectation) until it passes, or rethrows its last failure after `ms`. */
export async function eventually(check: () => unknown, ms = 15_000): Promise<void> {
  const deadline = Date.now() + ms;
  for (;;) {
    try {
      await check();
      return;
    } catch (error) {
      if (Date.now() > deadline) throw error;
      await Bun.sleep(50);
    }
  }
}

/**
 * Starts what `start` makes before the file's tests and stops it after them: the set-up every test
 * file on a fixture repeats. The tests read the fixture through the returned getter, which throws
 * when the start failed (rather than each test failing on an undefined fixture).
 */
export function fixtureForFile<T extends { stop(): unknown }>(
  start: () => Promise<T>,
  timeoutMs = 60_000,
): () => T {
  let started: T | undefined;
  beforeAll(async () => {
    started = await start();
  }, timeoutMs);
  afterAll(async () => {
    await started?.stop();
  });
  return () => {
    if (started === undefined) throw new Error("the file's fixture did not start");
    return started;
  };
}

/** The databases a test cluster is built on: the sandbox's, or another NB (a raft cluster) beside its SB. */
export type TestDatabases = Pick<OvnService, "nbRemote" | "sbRemote">;

/** The default cluster on the sandbox's NB and SB, started and synced. */
export async function startTestClusters(ovn: TestDatabases, extraArgs: string[] = []): Promise<ClusterSet> {
  const options = parseNetviewOptions(
    [`--ovnnb-db=${ovn.nbRemote}`, `--ovnsb-db=${ovn.sbRemote}`, "--probe-interval=1s", ...extraArgs],
    (path) => readFileSync(path, "utf8"),
  );
  const clusters = buildClusters(options, undefined, { initialMs: 50, maxMs: 300 });
  clusters.start();
  await Promise.all(clusters.all.flatMap((c) => [c.nb.ready(), c.sb.ready()]));
  return clusters;
}

/**
 * Netview's ops options for a test on the sandbox: state in memory, generous retention, writes to
 * the network off, changes to netview's state accepted with `testWriteToken`.
 */
export function testOpsOptions(
  ovn: TestDatabases,
  overrides: Partial<OpsOptions["options"]> = {},
): OpsOptions["options"] {
  return {
    clusters: [
      { name: "default", nb: parseRemotes(ovn.nbRemote), sb: parseRemotes(ovn.sbRemote), ovsMgmt: undefined },
    ],
    tls: undefined,
    chassisStaleThresholdMs: 60_000,
    stateDir: undefined,
    eventsRetentionMs: 3_600_000,
    eventsMax: 100_000,
    snapshotsMax: 20,
    writeEnabled: false,
    writeToken: new Secret(testWriteToken),
    ...overrides,
  };
}

/**
 * The netview app on `clusters` (with `ops` when given) as a test builds it: quiet, writes off
 * unless `settings` says so, and `/metrics` with the operations' series when `metrics`.
 */
export function testApp(options: {
  clusters: ClusterSet;
  ops?: NetviewOps;
  settings?: Partial<ServerSettings>;
  metrics?: boolean;
}) {
  const registry = createRegistry();
  if (options.metrics === true && options.ops !== undefined) registerOpsMetrics(registry, options.ops);
  return netviewApp({
    clusters: options.clusters,
    settings: {
      writeEnabled: false,
      wsAllowedOrigins: [],
      chassisStaleThresholdMs: 60_000,
      ...options.settings,
    },
    logger: quietLogger,
    registry,
    metricsEnabled: options.metrics === true,
    ...(options.ops === undefined ? {} : { ops: options.ops }),
  });
}

/**
 * Every table of the NB as ovsdb-server holds it (`ovsdb-client dump`, one block per table), but for
 * the tables named in `except` (NB_Global, whose counters the chassis move on their own).
 */
export async function nbDump(ovn: TestDatabases, except: readonly string[] = []): Promise<string> {
  const proc = Bun.spawn(["ovsdb-client", "dump", ovn.nbRemote, "OVN_Northbound"], {
    stdout: "pipe",
    stderr: "pipe",
  });
  const [out, code] = await Promise.all([new Response(proc.stdout).text(), proc.exited]);
  if (code !== 0) throw new Error(`ovsdb-client dump: exit ${code}`);
  return out
    .split("\n\n")
    .filter((block) => !except.some((table) => block.startsWith(`${table} table`)))
    .join("\n\n");
}
