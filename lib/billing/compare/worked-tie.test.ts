import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { decimal, formatMoney } from "../../foundation/money/decimal.ts";
import { RunWarnings } from "../metering/run-warnings.ts";
import { readPricingModel } from "../pricing/pricing-model.ts";
import { rateResource } from "../pricing/rate-resource.ts";
import { scaledText } from "../simulator/oracle-bill/exact.ts";
import { readOraclePrices } from "../simulator/oracle-bill/oracle-prices.ts";
import { rateOracleResource } from "../simulator/oracle-bill/oracle-rating.ts";
import { OracleRegistry, type OracleRelation } from "../simulator/oracle-bill/oracle-registry.ts";
import { oracleStatements } from "../simulator/oracle-bill/oracle-statements.ts";
import { buildStatements } from "../statements/build-statements.ts";
import { Registry } from "../statements/registry.ts";

/** The worked tie of docs/pricing-model.md#a-worked-tie, on the engine's side and on the oracle's. */
const text = readFileSync(new URL("../../../pricing/default.yaml", import.meta.url), "utf8");
const month = { name: "2026-10", from: "2026-10-01T00:00:00.000Z", to: "2026-11-01T00:00:00.000Z" };
const interval = (to: string) => ({
  from: month.from,
  to,
  state: "active",
  project_id: "p1",
  size: {},
});
const fipFor37Hours = interval("2026-10-02T13:00:00.000Z");

describe("docs/pricing-model.md#a-worked-tie", () => {
  test("a floating IP for 37 hours is 0.185, a tie: 0.19 on both sides, and the oracle says it was a tie", () => {
    const engine = rateResource(
      readPricingModel(text),
      { platform: "platform_a", resource_type: "floating_ip" },
      [fipFor37Hours],
    );
    expect(engine.lines.map((l) => [l.quantity.toFixed(6), formatMoney(l.amount)])).toEqual([
      ["37.000000", "0.19"],
    ]);
    const oracle = rateOracleResource(
      readOraclePrices(text),
      "platform_a",
      {
        resource_type: "floating_ip",
        resource_id: "f1",
        workload: "w",
        intervals: [fipFor37Hours],
        faults: [],
      },
      new Map(),
    );
    expect(oracle.lines.map((l) => [l.quantity, scaledText(l.amount, 2), l.tie])).toEqual([
      ["37.000000", "0.19", true],
    ]);
  });

  const relation = (id: string, adjustments: object[]): OracleRelation => ({
    id,
    source_id: "p1",
    target_id: "meta",
    relation_type: "member_of",
    metadata: { pricing_adjustments: adjustments as never },
    valid_from: month.from,
    valid_to: null,
  });
  const projects = [
    { id: "p1", platform: "platform_a", cloud: "c1", external_id: "p1" },
    { id: "meta", platform: "meta", cloud: "meta", external_id: "meta" },
  ];
  const both = (r: OracleRelation, fip = "0.19") => {
    const engine = buildStatements(
      [
        {
          cloud: "c1",
          project_id: "p1",
          buckets: [
            { platform: "platform_a", resource_type: "floating_ip", amount: decimal(fip) },
            { platform: "platform_a", resource_type: "loadbalancer", amount: decimal("0.19") },
          ],
        },
      ],
      new Registry(
        projects.map((p) => ({ id: p.id, platform: p.platform, cloud: p.cloud, externalId: p.external_id })),
        [
          {
            id: r.id,
            sourceId: r.source_id,
            targetId: r.target_id,
            relationType: r.relation_type,
            metadata: r.metadata,
            validFrom: r.valid_from,
            validTo: r.valid_to,
          },
        ],
        month,
      ),
      { relationTypes: ["member_of"], depth: 3 },
      new RunWarnings(),
    );
    const oracle = oracleStatements(
      [
        {
          cloud: "c1",
          project_id: "p1",
          buckets: [
            { platform: "platform_a", resource_type: "floating_ip", amount: BigInt(fip.replace(".", "")) },
            { platform: "platform_a", resource_type: "loadbalancer", amount: 19n },
          ],
        },
      ],
      new OracleRegistry(
        { projects, relations: [r], adjustment_relation_types: ["member_of"], adjustment_depth: 3 },
        month,
      ),
      { types: ["member_of"], depth: 3 },
      { kickbacksDropped: 0, deepestLevel: 0, metAgain: 0, beyond: 0 },
    );
    return {
      engine: (engine[0]?.adjustments ?? []).map((a) => [
        formatMoney(a.amount),
        a.shares.map((s) => formatMoney(s.amount)),
      ]),
      oracle: (oracle[0]?.adjustments ?? []).map((a) => [
        scaledText(a.amount, 2),
        a.shares.map((s) => scaledText(s.amount, 2)),
      ]),
      ties: (oracle[0]?.adjustments ?? []).map((a) => [a.tie, a.shares.map((s) => s.tie)]),
    };
  };

  test("a surcharge of 0.5 on the floating IP's 0.19 is 0.095, a tie: 0.10", () => {
    expect(
      both(relation("r1", [{ type: "surcharge", rate: "0.5", scope: "platform_a.floating_ip" }])),
    ).toEqual({
      engine: [["0.10", ["0.10"]]],
      oracle: [["0.10", ["0.10"]]],
      ties: [[true, [false]]],
    });
  });

  test("a discount of 0.5 on 0.38 is -0.19; the floating IP's share -0.095 is a tie: -0.10, the remainder -0.09", () => {
    expect(both(relation("r1", [{ type: "discount", rate: "0.5", scope: "all" }]))).toEqual({
      engine: [["-0.19", ["-0.10", "-0.09"]]],
      oracle: [["-0.19", ["-0.10", "-0.09"]]],
      ties: [[false, [true, false]]],
    });
  });

  test("once the floating IP bills 0.18, the discount on 0.37 is 0.185, a tie: -0.19 again", () => {
    expect(both(relation("r1", [{ type: "discount", rate: "0.5", scope: "all" }]), "0.18")).toEqual({
      engine: [["-0.19", ["-0.09", "-0.10"]]],
      oracle: [["-0.19", ["-0.09", "-0.10"]]],
      ties: [[true, [false, false]]],
    });
  });
});
