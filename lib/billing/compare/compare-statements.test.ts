import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { octoberOracle } from "../../../harness/simulator/october-oracle.ts";
import { oracleBill } from "../simulator/oracle-bill/oracle-bill.ts";
import { readOraclePrices } from "../simulator/oracle-bill/oracle-prices.ts";
import {
  compareCreditNotes,
  compareStatements,
  type ExportedBeneficiary,
  type ExportedCreditNote,
  type ExportedStatement,
  oracleExport,
  readExportedRun,
} from "./compare-statements.ts";
import { readRegistrySnapshot } from "./registry-snapshot.ts";

const prices = readOraclePrices(
  readFileSync(new URL("../../../pricing/default.yaml", import.meta.url), "utf8"),
);

const from = "2026-10-01T00:00:00.000Z";
const to = "2026-11-01T00:00:00.000Z";
const resource = (type: string, id: string, project: string, end: string, size: Record<string, number>) => ({
  resource_type: type,
  resource_id: id,
  workload: "steady",
  intervals: [
    { from, to: end, state: type === "volume" ? "available" : "active", project_id: project, size },
  ],
  faults: [],
});

// October has 744 hours: a 100 GiB volume bills 100 × 744 × 0.00011 = 8.18, a floating IP 744 × 0.005
// = 3.72, a 1000 GiB volume 81.84, a floating IP for 100 hours 0.50.
const oracle = octoberOracle([
  resource("volume", "v1", "t1", to, { size_gb: 100 }),
  resource("floating_ip", "f1", "t1", to, {}),
  resource("volume", "v9", "t9", to, { size_gb: 1000 }),
  resource("floating_ip", "f2", "t2", "2026-10-05T04:00:00.000Z", {}),
]);

const project = (id: string, platform: string, cloud: string) => ({ id, platform, cloud, external_id: id });
const relation = (id: string, source: string, target: string, type: string, adjustments?: unknown[]) => ({
  id,
  source_id: source,
  target_id: target,
  relation_type: type,
  metadata: adjustments === undefined ? {} : { pricing_adjustments: adjustments },
  valid_from: from,
  valid_to: null,
});

const snapshot = readRegistrySnapshot(
  JSON.stringify({
    projects: [
      project("t1", "platform_a", "cloud-1"),
      project("t2", "platform_a", "cloud-1"),
      project("t9", "platform_a", "cloud-1"),
      project("alpha", "gardener", "garden-1"),
      project("northwind", "partner", "partner"),
      project("enterprise", "meta", "meta"),
    ],
    relations: [
      relation("r1", "t1", "northwind", "managed_by", [
        { type: "kickback", rate: "0.05", scope: "all" },
        { type: "discount", rate: "0.2", scope: "all" },
        { type: "surcharge", rate: "0.1", scope: "platform_a.volume" },
      ]),
      relation("r2", "alpha", "t9", "infrastructure_tenant"),
      relation("r3", "alpha", "northwind", "managed_by", [{ type: "discount", rate: "0.1", scope: "all" }]),
      relation("r4", "northwind", "enterprise", "member_of", [
        { type: "project_discount", rate: "0.5", scope: "platform_a.floating_ip" },
      ]),
    ],
    adjustment_relation_types: ["managed_by", "member_of"],
    adjustment_depth: 3,
  }),
);

// Worked by hand, in the spec's order. t1: base 3.72 + 8.18 = 11.90; the surcharge 10 % of the volume's
// base 8.18 = 0.82; the discount 20 % of the running net 12.72 = 2.54 (apportioned -0.74 on the floating
// IP, -1.80 on the volume); northwind's project discount (second level) 50 % of the floating IP's net
// 2.98 = 1.49; net 8.69; the kickback 5 % of it, 0.43, beside the net. alpha carries t9's 81.84, less
// its discount 8.18; the project discount on floating IPs covers none of its buckets and adds no line.
const line = (type: string, scope: string, rate: string, target: string, relation: string) => ({
  type,
  relation_target: target,
  relation_id: relation,
  scope,
  rate,
});
const exported: ExportedStatement[] = [
  {
    cloud: "cloud-1",
    project_id: "t1",
    total: "8.69",
    base_cost: "11.90",
    net_cost: "8.69",
    kickback_total: "0.43",
    adjustments: [
      {
        ...line("surcharge", "platform_a.volume", "0.100000", "northwind", "r1"),
        base: "8.18",
        amount: "0.82",
      },
      { ...line("discount", "all", "0.200000", "northwind", "r1"), base: "12.72", amount: "-2.54" },
      {
        ...line("project_discount", "platform_a.floating_ip", "0.500000", "enterprise", "r4"),
        base: "2.98",
        amount: "-1.49",
      },
      { ...line("kickback", "all", "0.050000", "northwind", "r1"), base: "8.69", amount: "0.43" },
    ],
    related_costs: [],
  },
  { cloud: "cloud-1", project_id: "t2", total: "0.50", related_costs: [] },
  {
    cloud: "garden-1",
    project_id: "alpha",
    total: "73.66",
    base_cost: "81.84",
    net_cost: "73.66",
    kickback_total: "0.00",
    adjustments: [
      { ...line("discount", "all", "0.100000", "northwind", "r3"), base: "81.84", amount: "-8.18" },
    ],
    related_costs: [{ project_id: "t9", total: "81.84" }],
  },
];
// Northwind's settlement: t1's kickback alone, `amount` on `base`.
const northwind = (amount: string, base: string): ExportedBeneficiary[] => [
  {
    beneficiary: "northwind",
    kickback_total: amount,
    projects: 1,
    breakdown: [
      { cloud: "cloud-1", project_id: "t1", relation_id: "r1", scope: "all", rate: "0.050000", base, amount },
    ],
  },
];
const beneficiaries = northwind("0.43", "8.69");

describe("the oracle's own statements (oracleExport) and compareStatements", () => {
  test("the oracle's month, attributed and adjusted, is the bill worked by hand", () => {
    const expected = oracleExport(oracleBill(oracle, prices, snapshot));
    expect(compareStatements(expected, { statements: exported, beneficiaries })).toEqual({
      compared: "statements",
      statements: 3,
      settlements: 1,
      differences: [],
    });
  });

  test("a moved figure is named with both sides; a statement only the export has differs whole", () => {
    const expected = oracleExport(oracleBill(oracle, prices, snapshot));
    const [t1, t2, alpha] = exported as [ExportedStatement, ExportedStatement, ExportedStatement];
    const wrong = [
      { ...t1, total: "8.70", net_cost: "8.70" },
      t2,
      { ...alpha, related_costs: [] },
      { cloud: "cloud-1", project_id: "t9", total: "81.84" },
    ];
    expect(compareStatements(expected, { statements: wrong, beneficiaries: [] })).toEqual({
      compared: "statements",
      statements: 4,
      settlements: 1,
      differences: [
        {
          subject: "statement cloud-1/t1",
          lines: [
            { line: "net_cost", oracle: "8.69", export: "8.70" },
            { line: "total", oracle: "8.69", export: "8.70" },
          ],
        },
        { subject: "statement cloud-1/t9", lines: [{ line: "total", oracle: "-", export: "81.84" }] },
        {
          subject: "statement garden-1/alpha",
          lines: [{ line: "related:t9", oracle: "81.84", export: "-" }],
        },
        {
          subject: "kickbacks northwind",
          lines: [
            { line: "cloud-1/t1:all:0.050000#r1", oracle: "0.43 (8.69)", export: "-" },
            { line: "kickback_total", oracle: "0.43 (1)", export: "-" },
          ],
        },
      ],
    });
  });
});

// The finalized run missed t1's floating IP and t2's altogether. t1 then: base 8.18, the surcharge
// 0.82, the discount 20 % of 9.00 = 1.80, no project discount (no floating IP bucket), net 7.20, the
// kickback 5 % of it 0.36. Its credit note: base +3.72, the discount -0.74, the project discount -1.49,
// net and total +1.49, the kickback +0.07 on a base moved by 1.49; t2's note is its whole 0.50.
const [, , alphaStatement] = exported as [ExportedStatement, ExportedStatement, ExportedStatement];
const finalized: ExportedStatement[] = [
  {
    cloud: "cloud-1",
    project_id: "t1",
    total: "7.20",
    base_cost: "8.18",
    net_cost: "7.20",
    kickback_total: "0.36",
    adjustments: [
      {
        ...line("surcharge", "platform_a.volume", "0.100000", "northwind", "r1"),
        base: "8.18",
        amount: "0.82",
      },
      { ...line("discount", "all", "0.200000", "northwind", "r1"), base: "9.00", amount: "-1.80" },
      { ...line("kickback", "all", "0.050000", "northwind", "r1"), base: "7.20", amount: "0.36" },
    ],
    related_costs: [],
  },
  alphaStatement,
];
const settledBefore = northwind("0.36", "7.20");
const notes: ExportedCreditNote[] = [
  {
    cloud: "cloud-1",
    project_id: "t1",
    total: "1.49",
    base_delta: "3.72",
    net_delta: "1.49",
    kickback_delta: "0.07",
    adjustments: [
      { ...line("surcharge", "platform_a.volume", "0.100000", "northwind", "r1"), delta: "0.00" },
      { ...line("discount", "all", "0.200000", "northwind", "r1"), delta: "-0.74" },
      {
        ...line("project_discount", "platform_a.floating_ip", "0.500000", "enterprise", "r4"),
        delta: "-1.49",
      },
      { ...line("kickback", "all", "0.050000", "northwind", "r1"), delta: "0.07" },
    ],
    related_costs: [],
  },
  {
    cloud: "cloud-1",
    project_id: "t2",
    total: "0.50",
    base_delta: "0.50",
    net_delta: "0.50",
    kickback_delta: "0.00",
    adjustments: [],
    related_costs: [],
  },
];
const owedMore = northwind("0.07", "1.49");

describe("compareCreditNotes", () => {
  test("each credit note is the oracle's statement less the finalized one, worked by hand", () => {
    const expected = oracleExport(oracleBill(oracle, prices, snapshot));
    expect(
      compareCreditNotes(
        expected,
        { statements: finalized, beneficiaries: settledBefore },
        { notes, beneficiaries: owedMore },
      ),
    ).toEqual({ compared: "credit notes", statements: 2, settlements: 1, differences: [] });
  });

  test("a delta the note lacks, a note that is missing and a settlement not moved are named", () => {
    const expected = oracleExport(oracleBill(oracle, prices, snapshot));
    const [t1] = notes as [ExportedCreditNote];
    const short = { ...t1, adjustments: t1.adjustments.filter((a) => a.type !== "project_discount") };
    expect(
      compareCreditNotes(
        expected,
        { statements: finalized, beneficiaries: settledBefore },
        { notes: [short], beneficiaries: [] },
      ),
    ).toEqual({
      compared: "credit notes",
      statements: 1,
      settlements: 1,
      differences: [
        {
          subject: "credit note cloud-1/t1",
          lines: [
            {
              line: "project_discount:platform_a.floating_ip:0.500000@enterprise#r4",
              oracle: "-1.49",
              export: "0.00",
            },
          ],
        },
        {
          subject: "credit note cloud-1/t2",
          lines: [
            { line: "base", oracle: "0.50", export: "0.00" },
            { line: "net", oracle: "0.50", export: "0.00" },
            { line: "total", oracle: "0.50", export: "0.00" },
          ],
        },
        {
          subject: "kickbacks northwind",
          lines: [
            { line: "cloud-1/t1:all:0.050000#r1", oracle: "0.07", export: "0.00" },
            { line: "cloud-1/t1:all:0.050000#r1:base", oracle: "1.49", export: "0.00" },
            { line: "kickback_total", oracle: "0.07", export: "0.00" },
          ],
        },
      ],
    });
  });
});

describe("compare-statements refusals", () => {
  test("a run.json with neither statements nor credit notes, and a document that is not JSON", () => {
    expect(readExportedRun(JSON.stringify({ run_id: "c", corrects_run_id: "f", credit_notes: [] }))).toEqual({
      kind: "credit notes",
      run_id: "c",
      corrects_run_id: "f",
      notes: [],
    });
    expect(() => readExportedRun(JSON.stringify({ run_id: "c" }))).toThrow(
      "the export's run.json holds neither statements nor credit notes",
    );
    expect(() => readExportedRun("{")).toThrow("the export's run.json is not JSON");
  });
  test("a snapshot without its walk", () => {
    expect(() => readRegistrySnapshot(JSON.stringify({ projects: [], relations: [] }))).toThrow(
      "the registry snapshot's adjustment_relation_types is not an array",
    );
  });
});
