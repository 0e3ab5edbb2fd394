import { afterAll, beforeAll } from "bun:test";
import { generateMonth } from "../../lib/billing/simulator/generate-month.ts";
import {
  type PlatformApiServer,
  startPlatformApi,
} from "../../lib/billing/simulator/platform-api/platform-api.ts";
import { parsePeriod } from "../../lib/foundation/time/period.ts";

/**
 * The fake platform API over a generated October 2026, what the reporting tests of the platform_a
 * adapter and of sync list from. Written once so that a test names only what it varies: the seed,
 * the tenants and the cloud.
 */
export interface OctoberPlatform {
  seed: number;
  tenants: number;
  /** `cloud-1` unless given. */
  cloud?: string;
}

export function startOctoberPlatformApi(platform: OctoberPlatform): Promise<PlatformApiServer> {
  const month = generateMonth({
    seed: platform.seed,
    period: parsePeriod("2026-10"),
    cloud: platform.cloud ?? "cloud-1",
    scale: { tenants: platform.tenants },
  });
  return startPlatformApi({ month });
}

/**
 * The API of a test file: started before its first test (answering at `at`, when given) and stopped
 * after its last, by bun:test hooks the call registers (hooks registered after it may use it).
 */
export function octoberPlatformApiOfFile(platform: OctoberPlatform & { at?: string }): PlatformApiServer {
  const api = {} as PlatformApiServer;
  beforeAll(async () => {
    Object.assign(api, await startOctoberPlatformApi(platform));
    if (platform.at !== undefined) api.at(Date.parse(platform.at));
  });
  afterAll(async () => {
    // Absent when the API could not start: there is nothing to stop.
    if ("stop" in api) await api.stop();
  });
  return api;
}
