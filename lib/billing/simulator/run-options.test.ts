import { expect, test } from "bun:test";
import { parseRunOptions } from "./run-options.ts";

const now = new Date("2026-11-21T10:00:00Z");

test("defaults of the spec and our scale", () => {
  const o = parseRunOptions({ period: "2026-10" }, now);
  expect(o).toMatchObject({
    seed: 1,
    factor: 744,
    faults: [],
    out: null,
    metricsIntervalSeconds: 300,
    waitForCollectorMs: 120_000,
    registerProjects: false,
    allowRemoteBroker: false,
    scale: { tenants: 10 },
    novaFormat: "legacy",
    extraTypes: [],
  });
  expect(o.period.from).toBe("2026-10-01T00:00:00.000Z");
});

test("every refusal at once", () => {
  expect(() =>
    parseRunOptions(
      {
        period: "2026-11",
        seed: "x",
        factor: "-2",
        "metrics-interval": "29s",
        "wait-for-collector": "-1s",
        tenants: "0",
      },
      now,
    ),
  ).toThrow(/has not ended.*--seed.*--factor.*--metrics-interval.*--wait-for-collector.*--tenants/);
  expect(() => parseRunOptions({}, now)).toThrow("--period is required");
});

test("the metrics grid takes whole seconds from 30s to 24h; factor and wait may be zero", () => {
  expect(parseRunOptions({ period: "2026-10", "metrics-interval": "24h" }, now).metricsIntervalSeconds).toBe(
    86_400,
  );
  expect(() => parseRunOptions({ period: "2026-10", "metrics-interval": "30500ms" }, now)).toThrow();
  expect(() => parseRunOptions({ period: "2026-10", "metrics-interval": "25h" }, now)).toThrow();
  const zero = parseRunOptions({ period: "2026-10", factor: "0", "wait-for-collector": "0" }, now);
  expect([zero.factor, zero.waitForCollectorMs]).toEqual([0, 0]);
});

test("what the cloud sends: nova's format and the extra types, refused naming what they take", () => {
  const o = parseRunOptions(
    {
      period: "2026-10",
      "nova-format": "both",
      "extra-types": "volume_backup, volume_snapshot,volume_backup",
    },
    now,
  );
  expect([o.novaFormat, o.extraTypes]).toEqual(["both", ["volume_snapshot", "volume_backup"]]);
  expect(() =>
    parseRunOptions({ period: "2026-10", "nova-format": "unversioned", "extra-types": "snapshot" }, now),
  ).toThrow(
    /--nova-format.*must be one of legacy, versioned, both, not "unversioned".*--extra-types.*unknown type "snapshot": the extra types are volume_snapshot, volume_backup/s,
  );
});
