/**
 * A cloud to reconcile in a test: a reporting test database, the fake platform API over a generated
 * month, and a Reporting API app whose clouds file points the `platform_a` adapter at it, with an
 * ingest into the app and `POST /internal/sync/{cloud}` at a chosen instant.
 */
import { expect } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { CanonicalEvent } from "../../lib/billing/events/event.ts";
import type { SyncResult } from "../../lib/billing/reporting/sync/sync-run.ts";
import type { Month } from "../../lib/billing/simulator/month.ts";
import {
  type PlatformApiServer,
  startPlatformApi,
} from "../../lib/billing/simulator/platform-api/platform-api.ts";
import { loadPlatformClouds } from "./platform-cloud-files.ts";
import { postEventLines, sendToApp } from "./post-event-lines.ts";
import { type ReportingTestDatabase, reportingTestDatabase } from "./reporting-database.ts";
import { buildTestApp, call, testInternalToken } from "./reporting-test-app.ts";

export interface SyncCloud {
  db: ReportingTestDatabase;
  api: PlatformApiServer;
  /** The app syncing the cloud with a settle window of `settleS` seconds, and an ingest into it. */
  app(settleS: number): {
    app: ReturnType<typeof buildTestApp>["app"];
    ingest(events: readonly CanonicalEvent[]): Promise<unknown>;
    /** A sync at `instant` (the run's `at`), answered 200. */
    sync(instant: string): Promise<SyncResult>;
  };
  close(): Promise<void>;
}

export async function openSyncCloud(month: Month, cloud: string): Promise<SyncCloud> {
  const db = await reportingTestDatabase();
  const api = await startPlatformApi({ month });
  const dir = mkdtempSync(join(tmpdir(), "svc-sync-cloud-"));
  return {
    db,
    api,
    app(settleS) {
      const app = buildTestApp(db, {
        mode: "disabled",
        clouds: loadPlatformClouds(dir, [{ name: cloud, url: api.url }]),
        sync: { allowAt: true, settleS },
      }).app;
      return {
        app,
        ingest: (events) =>
          postEventLines(
            sendToApp(app),
            events.map((e) => JSON.stringify(e)),
          ),
        async sync(instant) {
          const answer = await call(app, "POST", `/internal/sync/${cloud}`, {
            token: testInternalToken,
            body: { at: instant },
          });
          expect(answer.status).toBe(200);
          return answer.json as SyncResult;
        },
      };
    },
    async close() {
      await api.stop();
      await db.dispose();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
