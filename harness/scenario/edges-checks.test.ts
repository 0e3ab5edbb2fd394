import { describe, expect, test } from "bun:test";
import { oracleFormat } from "../../lib/billing/simulator/oracle.ts";
import { noFindings, type OracleBill } from "../../lib/billing/simulator/oracle-bill/oracle-bill.ts";
import type { OracleAdjustment } from "../../lib/billing/simulator/oracle-bill/oracle-statements.ts";
import type { JsonObject } from "../../lib/foundation/json/json-value.ts";
import type { Observed, Total } from "./checks.ts";
import { edgesChecks } from "./edges-checks.ts";

const from = "2026-10-01T00:00:00.000Z";
const to = "2026-11-01T00:00:00.000Z";
const midOnHour = "2026-10-12T06:00:00.000Z";
const midOffHour = "2026-10-20T13:17:42.500Z";

const tieLine: OracleAdjustment = {
  type: "kickback",
  relation_type: "managed_by",
  relation_target: "n",
  relation_target_cloud: "partner",
  relation_id: "r-tie",
  scope: "all",
  rate: "0.500000",
  base: 37n,
  amount: 19n,
  tie: true,
  level: 1,
  shares: [{ platform: "platform_a", resource_type: "instance", amount: 19n, tie: false }],
};

const bill = (findings: Partial<OracleBill["findings"]> = {}): OracleBill => ({
  currency: "EUR",
  resources: new Map([
    [
      "instance/i-1",
      {
        lines: [
          {
            project_id: "p",
            dimension: "vcpus",
            quantity: "37.000000",
            usage: { n: 37n * 3_600_000n, d: 1n },
            priced: { n: 37n * 3_600_000n * 5n, d: 1000n },
            unit: { n: 3_600_000n, d: 1n },
            amount: 19n,
            tie: true,
          },
        ],
        unpricedType: false,
        unpricedState: false,
        byValue: 0,
        named: 0,
        split: 0,
      },
    ],
  ]),
  statements: [
    {
      cloud: "cloud-1",
      project_id: "p",
      buckets: [],
      base: 37n,
      net: 37n,
      kickback: 19n,
      total: 37n,
      adjustments: [tieLine],
      related: [],
      tiers: [],
      minimums: [],
      error: null,
    },
  ],
  settlements: [],
  findings: {
    ...noFindings(),
    unpricedTypes: 2,
    unpricedStates: 1,
    lineTies: 1,
    adjustmentTies: 1,
    shareTies: 1,
    kickbacksDropped: 1,
    deepestLevel: 3,
    metAgain: 1,
    beyond: 1,
    ...findings,
  },
});

const relation = (
  id: string,
  source: string,
  target: string,
  span: [string, string | null],
  adjustments = true,
) => ({
  id,
  source_id: source,
  target_id: target,
  relation_type: source === "alpha" ? "infrastructure_tenant" : "managed_by",
  metadata: (adjustments
    ? {
        pricing_adjustments: [
          { type: "discount", rate: "0.1", scope: "all" },
          ...(target === "g" ? [{ type: "kickback", rate: "0.05", scope: "all" }] : []),
        ],
      }
    : {}) as JsonObject,
  valid_from: span[0],
  valid_to: span[1],
});

/** One of each span: from and until mid-month on and off the hour, a re-opened triple, the two edges, an attribution. */
const relations = [
  relation("r-np", "p", "g", [from, null]),
  relation("r-start-on", "p", "n", [midOnHour, null]),
  relation("r-start-off", "p", "n2", [midOffHour, null]),
  relation("r-end-on", "p", "n3", [from, midOnHour]),
  relation("r-end-off", "p", "n4", [from, midOffHour]),
  relation("r-closed", "p", "n5", [from, midOnHour]),
  relation("r-reopened", "p", "n5", [midOffHour, null]),
  relation("r-before", "p", "n6", ["2026-09-10T00:00:00.000Z", from]),
  relation("r-after", "p", "n6", [to, null]),
  relation("r-attributes", "alpha", "t", [midOnHour, null], false),
];
const line = (relation_id: string, type = "discount"): NonNullable<Total["adjustments"]>[number] => ({
  type,
  relation_id,
  scope: "all",
  amount: "-1.00",
});

const note = (types: string[]): Total => ({
  cloud: "cloud-1",
  project_id: "p",
  total: "0.50",
  adjustments: [
    ...types.map((type) => ({ type, relation_id: `r-${type}`, scope: "all", delta: "0.10" })),
    { type: "kickback", relation_id: "r-tie", scope: "all", delta: "0.01" },
  ],
  line_items: [{ resource_type: "instance", resource_id: "i-1", dimensions: { vcpus: { delta: "0.19" } } }],
});

const observed = (over: { bill?: OracleBill; notes?: Total[]; dropped?: number } = {}): Observed => ({
  oracle: {
    format: oracleFormat,
    cloud: "cloud-1",
    seed: 1,
    period_from: from,
    period_to: to,
    resources: [],
    counts: [],
    faults: ["held-back"],
    traffic: [],
  },
  stored: [],
  ingest: { posted: 0, batches: 0, accepted: 0, duplicates: 0, rejected: 0 },
  run: {
    runId: "r",
    candidates: 1,
    usageRecords: 1,
    ratedRecords: 1,
    warnings: {},
    codes: { adjustment_kickback_target_not_partner: over.dropped ?? 1 },
  },
  comparison: { resources: 1, differences: [] },
  delivered: new Set(),
  statements: [
    {
      cloud: "cloud-1",
      project_id: "p",
      total: "1.00",
      adjustments: ["r-np", "r-start-on", "r-start-off", "r-end-on", "r-end-off", "r-reopened"].map((id) =>
        line(id),
      ),
    },
    {
      cloud: "garden-1",
      project_id: "alpha",
      total: "1.00",
      related_costs: [{ project_id: "t", total: "1.00" }],
    },
  ],
  correction: {
    output: {
      runId: "c",
      candidates: 1,
      usageRecords: 1,
      ratedRecords: 1,
      warnings: {},
      codes: { resource_type_not_priced: 2, state_not_priced: 1 },
      correctsRunId: "r",
      deltas: 1,
      adjustmentDeltas: 5,
      creditNotes: 1,
    },
    again: "no deltas: the finalized numbers of 2026-10 stand",
    creditNotes: over.notes ?? [note(["surcharge", "discount", "project_discount"])],
  },
  registry: {
    made: {
      plan: { virtual: [], relations: [] },
      snapshot: {
        projects: [
          { id: "p", platform: "platform_a", cloud: "cloud-1", external_id: "p" },
          { id: "t", platform: "platform_a", cloud: "cloud-1", external_id: "t" },
          { id: "alpha", platform: "gardener", cloud: "garden-1", external_id: "alpha" },
          { id: "g", platform: "meta", cloud: "meta", external_id: "g" },
          ...["n", "n2", "n3", "n4", "n5", "n6"].map((id) => ({
            id,
            platform: "partner",
            cloud: "partner",
            external_id: id,
          })),
        ],
        relations,
        adjustment_relation_types: ["managed_by", "member_of"],
        adjustment_depth: 3,
      },
      registered: { projects: 0, relations: 0 },
      made: { projects: 0, relations: 0, adjustments: 0 },
    },
    kickbacks: { reported: {}, exported: {} },
  },
  edges: { bill: over.bill ?? bill() },
});

const failed = (o: Observed) =>
  edgesChecks(o)
    .filter((c) => c.status === "fail")
    .map((c) => c.details);

describe("the money-edges checks", () => {
  test("a month with every case passes, each case counted", () => {
    const checks = edgesChecks(observed());
    expect(checks.filter((c) => c.status === "fail")).toEqual([]);
    expect(checks.map((c) => c.text)).toEqual([
      "kickbacks to a project that is not a partner are dropped: the engine warned adjustment_kickback_target_not_partner 1 times, the oracle dropped 1; the 1 other adjustments of those relations were kept and no kickback was billed",
      "the adjustment walk applied relations 3 levels deep (SVC_ENGINE_ADJUSTMENT_DEPTH 3), met 1 relations again by a second way and billed each once, and left 1 past the depth unbilled",
      "relations in force for part of the month bill as in force for all of it: 4 from mid-month (2 on the hour, 2 off it), 3 until mid-month (2 on the hour, 1 off it), 1 of them attributions; 1 closed and re-opened, billed by the later only; 2 touching the month only at an edge, billed nowhere",
      "what the model does not price bills nothing and loses nothing: 2 resources of an unpriced type (resource_type_not_priced 2) and 1 that passed through an unpriced state (state_not_priced 1), their events stored and their priced hours billed as the oracle's",
      "amounts exactly on half a cent, rounded half away from zero as the oracle rounds them: 1 rated lines, 1 adjustment lines, 1 apportioned shares, 2 credit-note deltas",
      "the correction moves every adjustment type: surcharge 1, discount 1, project_discount 1, kickback 1 deltas on 1 credit notes",
    ]);
  });

  test("a month that misses a case fails, naming what it missed", () => {
    expect(failed(observed({ dropped: 0, bill: bill({ kickbacksDropped: 0 }) }))).toEqual([
      [
        "warned 0, dropped 0, other adjustments kept 1, kickbacks billed 0",
        "no kickback to a non-partner occurred: the month missed the case",
      ],
    ]);
    expect(failed(observed({ bill: bill({ deepestLevel: 2, beyond: 0 }) }))).toEqual([
      ["deepest level 2, met again 1, past the depth 0"],
    ]);
    expect(failed(observed({ bill: bill({ unpricedStates: 0 }) }))).toEqual([
      ["the oracle finds 2 and 0; the engine warned 2 and 1"],
    ]);
    expect(failed(observed({ notes: [note(["surcharge", "discount"])] }))).toEqual([
      ["no project_discount moved: the held share missed it"],
    ]);
    expect(failed(observed({ bill: bill({ shareTies: 0 }) }))).toEqual([
      ["rated lines 1, adjustment lines 1, shares 0, credit-note deltas 2"],
    ]);
  });

  test("a relation billed outside its span, or a re-opened triple billed twice, fails, named", () => {
    const o = observed();
    const [p] = o.statements;
    (p?.adjustments ?? []).push(line("r-before"), line("r-closed"));
    expect(failed(o)).toEqual([
      [
        `relation r-before (2026-09-10T00:00:00.000Z to ${from}) is billed and must not be`,
        `relation r-closed (${from} to ${midOnHour}) is billed and must not be`,
      ],
    ]);
  });
});
