import { describe, expect, test } from "bun:test";
import { EngineOutputError, readCorrectionOutput, readLateOutput, readRunOutput } from "./engine-output.ts";

describe("readRunOutput", () => {
  test("reads the run, metered and warnings lines with their named codes", () => {
    const out = readRunOutput([
      "run 0b7c completed for 2026-10 with pricing model default",
      "metered 258 candidates into 400 usage records and 900 rated records",
      "warnings recorded in runs.stats: metering=2 counter=0 attribution=0 adjustment=0 unpriced_resource_types=0 unreadable_fields=0 unregistered_projects=12 (history_starts_without_create=2 project_not_registered=12)",
    ]);
    expect(out).toEqual({
      runId: "0b7c",
      candidates: 258,
      usageRecords: 400,
      ratedRecords: 900,
      warnings: {
        metering: 2,
        counter: 0,
        attribution: 0,
        adjustment: 0,
        unpriced_resource_types: 0,
        unreadable_fields: 0,
        unregistered_projects: 12,
      },
      codes: { history_starts_without_create: 2, project_not_registered: 12 },
    });
  });

  test("a warnings line without codes", () => {
    const out = readRunOutput([
      "run r completed for 2026-10 with pricing model default",
      "metered 1 candidates into 1 usage records and 1 rated records",
      "warnings recorded in runs.stats: metering=0 counter=0",
    ]);
    expect(out.codes).toEqual({});
    expect(out.warnings).toEqual({ metering: 0, counter: 0 });
  });

  test("output without the three lines is refused", () => {
    expect(() => readRunOutput(["something else"])).toThrow(EngineOutputError);
  });
});

describe("readLateOutput", () => {
  test("names each late resource as compare does", () => {
    expect(
      readLateOutput([
        "run r read 2026-10 at 2026-11-23T10:00:00.000Z",
        "cloud-1/platform_a/instance/i-1: 2 late events, last received 2026-11-23T10:01:00.000Z",
        "cloud-1/platform_a/volume/v-1: 1 late events, last received 2026-11-23T10:01:00.000Z",
        "book them with correct --period 2026-10",
      ]),
    ).toEqual([
      { resource: "instance/i-1", events: 2 },
      { resource: "volume/v-1", events: 1 },
    ]);
  });
  test("none", () => {
    expect(readLateOutput(["run r read 2026-10 at x", "no events arrived later"])).toEqual([]);
  });
});

describe("readCorrectionOutput", () => {
  test("a correction with its tally", () => {
    const out = readCorrectionOutput([
      "run c1 completed as a correction of run r1 for 2026-10 with pricing model default",
      "metered 260 candidates into 510 usage records and 600 rated records",
      "42 deltas and 0 adjustment deltas in 9 credit notes",
      "warnings recorded in runs.stats: metering=0 counter=0 (project_not_registered=12)",
    ]);
    expect(out).toMatchObject({
      runId: "c1",
      correctsRunId: "r1",
      deltas: 42,
      adjustmentDeltas: 0,
      creditNotes: 9,
    });
    expect(out?.codes).toEqual({ project_not_registered: 12 });
  });
  test("no deltas is null", () => {
    expect(readCorrectionOutput(["no deltas: the finalized numbers of 2026-10 stand"])).toBeNull();
  });
  test("anything else is refused", () => {
    expect(() => readCorrectionOutput(["run c1 completed for 2026-10"])).toThrow(EngineOutputError);
  });
});
