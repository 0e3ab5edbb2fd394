import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { CanonicalEvent } from "../../lib/billing/events/event.ts";
import type { OracleResource } from "../../lib/billing/simulator/oracle.ts";
import { readOracle } from "../../lib/billing/simulator/oracle-document.ts";
import { runFileMode } from "../../lib/billing/simulator/run-file-mode.ts";
import { parseRunOptions } from "../../lib/billing/simulator/run-options.ts";
import { explainResource } from "./explain-resource.ts";
import { pricingModelPath } from "./run-scenario.ts";
import { syncEventsPath } from "./sync-stage.ts";

let dir: string;
let withheld: OracleResource;
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "svc-explain-"));
  const options = parseRunOptions(
    { period: "2026-10", seed: "1", tenants: "2", faults: "missing-create" },
    new Date(),
  );
  await runFileMode(options, "cloud-1", join(dir, "month"));
  const oracle = readOracle(readFileSync(join(dir, "month/oracle.json"), "utf8"));
  const found = oracle.resources.find(
    (r) => r.resource_type === "instance" && r.faults.includes("missing-create") && r.intervals.length === 1,
  );
  if (found === undefined) throw new Error("seed 1 withholds no create of an instance with one interval");
  withheld = found;
}, 120_000);
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

const intervalLines = (text: string[]) => {
  const from = text.indexOf(
    "intervals in the month: the engine's fold of the delivered events, and the oracle's",
  );
  const to = text.indexOf("", from);
  return text.slice(from + 1, to === -1 ? undefined : to);
};

test("a resource whose create was withheld, then repaired by a sync: the sync's event is marked and folded", () => {
  const id = `${withheld.resource_type}/${withheld.resource_id}`;
  const before = explainResource(dir, id, pricingModelPath);
  expect(before).toContain(
    "  the history starts without a create: the engine warns history_starts_without_create",
  );

  const first = withheld.intervals[0];
  if (first === undefined) throw new Error("no interval");
  const repair: CanonicalEvent = {
    event_id: "platform_a:explain-test-repair",
    timestamp: first.from,
    event_type: "sync.create",
    platform: "platform_a",
    cloud: "cloud-1",
    resource_type: withheld.resource_type,
    resource_id: withheld.resource_id,
    project_id: first.project_id,
    source: "reconciliation",
    payload: { state: first.state, size: first.size },
  };
  mkdirSync(join(dir, "reconcile"));
  writeFileSync(syncEventsPath(dir), `${JSON.stringify(repair)}\n`);
  const after = explainResource(dir, id, pricingModelPath);
  expect(after.some((l) => l.includes(" sync.create ") && l.includes("[written by a sync]"))).toBe(true);
  expect(after).not.toContain(
    "  the history starts without a create: the engine warns history_starts_without_create",
  );
  const intervals = intervalLines(after);
  expect(intervals.length).toBeGreaterThan(0);
  expect(intervals.every((l) => l.startsWith("  both "))).toBe(true);
});
