/**
 * The set-up netview's route tests share: the run's OVN (or other databases), the file's topology
 * made before the clusters start and removed after they stop, the clusters, the operations started
 * with the test's loops, and the app around them. Not imported by any program.
 */
import type { ClusterSet } from "../../lib/network/netview/cluster.ts";
import { buildOps, type NetviewOps, type OpsOptions } from "../../lib/network/netview/netview-ops.ts";
import type { ServerSettings } from "../../lib/network/netview/system-routes.ts";
import type { OvnService } from "../services/ovn.ts";
import { services } from "../test-services.ts";
import type { NetviewApp } from "./send.ts";
import {
  fixtureForFile,
  startTestClusters,
  type TestDatabases,
  testApp,
  testOpsOptions,
} from "./test-support.ts";

export interface RouteTest {
  ovn: OvnService;
  clusters: ClusterSet;
  ops: NetviewOps;
  app: NetviewApp;
  /** The listening app's address (`http://127.0.0.1:port`); empty unless `listen`. */
  base: string;
  stop(): Promise<void>;
}

export interface RouteTestOptions {
  /** The NB and SB the clusters are built on (default the run's OVN's). */
  databases?: TestDatabases;
  /** Makes the file's topology, before the clusters start. */
  prepare?: (ovn: OvnService) => Promise<unknown>;
  /** Removes it again, after the clusters stopped. */
  cleanup?: (ovn: OvnService) => Promise<unknown>;
  /** The operations' loops and limits, as `buildOps` takes them. */
  ops?: Omit<OpsOptions, "options" | "clusters">;
  /** Over `testOpsOptions`. */
  opsOptions?: Partial<OpsOptions["options"]>;
  settings?: Partial<ServerSettings>;
  /** `/metrics` with the operations' series. */
  metrics?: boolean;
  /** Serve the app on a free port too (for WebSocket and fetch clients). */
  listen?: boolean;
  /** How long the start may take (default 60 s). */
  timeoutMs?: number;
}

export async function startRouteTest(options: RouteTestOptions = {}): Promise<RouteTest> {
  const ovn = await services.ovn();
  try {
    await options.prepare?.(ovn);
    return await startOn(ovn, options);
  } catch (error) {
    // The topology is the shared sandbox's: a start that failed does not leave it to other files.
    await options.cleanup?.(ovn);
    throw error;
  }
}

async function startOn(ovn: OvnService, options: RouteTestOptions): Promise<RouteTest> {
  const databases = options.databases ?? ovn;
  const clusters = await startTestClusters(databases);
  const ops = buildOps({
    ...options.ops,
    options: testOpsOptions(databases, options.opsOptions),
    clusters,
  });
  ops.start();
  const app = testApp({
    clusters,
    ops,
    ...(options.settings === undefined ? {} : { settings: options.settings }),
    ...(options.metrics === undefined ? {} : { metrics: options.metrics }),
  });
  if (options.listen === true) app.listen({ hostname: "127.0.0.1", port: 0 });
  return {
    ovn,
    clusters,
    ops,
    app,
    base: options.listen === true ? `http://127.0.0.1:${app.server?.port}` : "",
    async stop() {
      if (options.listen === true) await app.stop(true);
      ops.stop();
      clusters.stop();
      await options.cleanup?.(ovn);
    },
  };
}

/** A route test started before the file's tests and stopped after them. */
export function routeTestForFile(options: RouteTestOptions = {}): () => RouteTest {
  return fixtureForFile(() => startRouteTest(options), options.timeoutMs);
}
