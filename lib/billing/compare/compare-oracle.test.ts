import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { octoberOracle } from "../../../harness/simulator/october-oracle.ts";
import type { Oracle, OracleResource } from "../simulator/oracle.ts";
import { oracleBill } from "../simulator/oracle-bill/oracle-bill.ts";
import { readOraclePrices } from "../simulator/oracle-bill/oracle-prices.ts";
import { compareWithOracle } from "./compare-oracle.ts";
import type { RatedRow } from "./rated-csv.ts";

const prices = readOraclePrices(
  readFileSync(new URL("../../../pricing/default.yaml", import.meta.url), "utf8"),
);

const from = "2026-10-01T00:00:00.000Z";

/** A floating IP of t1, steady from the month's start until `to`. */
const floatingIp = (id: string, to: string): OracleResource => ({
  resource_type: "floating_ip",
  resource_id: id,
  workload: "steady",
  intervals: [{ from, to, state: "active", project_id: "t1", size: {} }],
  faults: [],
});

// f1 lived the month less 2 s: 743.999444 hours at 0.005 is 3.72, as the whole month is.
// f2 lived 100 hours: 0.50.
const oracle = octoberOracle([
  floatingIp("f1", "2026-10-31T23:59:58.000Z"),
  floatingIp("f2", "2026-10-05T04:00:00.000Z"),
]);

const bill = oracleBill(oracle, prices);

const row = (id: string, quantity: string, amount: string): RatedRow => ({
  cloud: "cloud-1",
  platform: "platform_a",
  resource_type: "floating_ip",
  resource_id: id,
  project_id: "t1",
  dimension: "hours",
  quantity,
  unit_price: "0.005",
  amount,
  currency: "EUR",
});

describe("compareWithOracle on a correction's export (decision 426)", () => {
  const finalized = [row("f1", "744.000000", "3.72"), row("f2", "744.000000", "3.72")];
  const corrected = [row("f1", "744.000000", "3.72"), row("f2", "100.000000", "0.50")];

  test("a line whose amount did not move keeps its finalized quantity: kept, not a difference", () => {
    expect(compareWithOracle(oracle, bill, corrected, finalized)).toEqual({
      resources: 2,
      differences: [],
      kept: 1,
    });
  });

  test("without the finalized export the same line differs in quantity", () => {
    expect(compareWithOracle(oracle, bill, corrected).differences).toEqual([
      {
        resource: "floating_ip/f1",
        lines: [{ line: "t1/hours", oracle: "3.72 (743.999444)", export: "3.72 (744.000000)" }],
        missingCreate: false,
      },
    ]);
  });

  test("a quantity that is neither the oracle's nor the finalized one differs", () => {
    const moved = [row("f1", "743.000000", "3.72"), row("f2", "100.000000", "0.50")];
    expect(compareWithOracle(oracle, bill, moved, finalized).differences.map((d) => d.resource)).toEqual([
      "floating_ip/f1",
    ]);
  });

  test("a 0.00 line the late events made, which neither export has, is kept; one the finalized had differs", () => {
    // f3 lived 30 minutes, a late create: 0.5 hours at 0.005 is 0.0025, 0.00.
    const late: Oracle = {
      ...oracle,
      resources: [...oracle.resources, floatingIp("f3", "2026-10-01T00:30:00.000Z")],
    };
    const lateBill = oracleBill(late, prices);
    expect(compareWithOracle(late, lateBill, corrected, finalized)).toEqual({
      resources: 3,
      differences: [],
      kept: 2,
    });
    const had = [...finalized, row("f3", "1.000000", "0.01")];
    expect(compareWithOracle(late, lateBill, corrected, had).differences.map((d) => d.resource)).toEqual([
      "floating_ip/f3",
    ]);
    expect(compareWithOracle(late, lateBill, corrected).differences.map((d) => d.resource)).toEqual([
      "floating_ip/f1",
      "floating_ip/f3",
    ]);
  });
});
