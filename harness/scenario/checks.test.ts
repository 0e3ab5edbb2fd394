import { describe, expect, test } from "bun:test";
import { type Oracle, oracleFormat } from "../../lib/billing/simulator/oracle.ts";
import { type Observed, passed, scenarioChecks } from "./checks.ts";
import type { RegistryPlan } from "./registry-plan.ts";
import { defineScenario, type Scenario } from "./scenario.ts";

const oracle = (marked: string[] = []): Oracle => ({
  format: oracleFormat,
  cloud: "cloud-1",
  seed: 1,
  period_from: "2026-10-01T00:00:00.000Z",
  period_to: "2026-11-01T00:00:00.000Z",
  resources: ["i-1", "i-2", "i-3"].map((id) => ({
    resource_type: "instance",
    resource_id: id,
    workload: "steady",
    intervals: [],
    faults: marked.includes(id) ? ["missing-create"] : [],
  })),
  counts: [{ project_id: "p", event_type: "compute.instance.create.end", count: 3 }],
  faults: [],
  traffic: [],
});

const observed = (over: Partial<Observed> = {}): Observed => ({
  oracle: oracle(),
  stored: [{ project_id: "p", event_type: "compute.instance.create.end", count: 3 }],
  ingest: { posted: 3, batches: 1, accepted: 3, duplicates: 0, rejected: 0 },
  run: {
    runId: "r",
    candidates: 3,
    usageRecords: 3,
    ratedRecords: 9,
    warnings: { metering: 0, counter: 0, unregistered_projects: 1 },
    codes: { project_not_registered: 1 },
  },
  comparison: { resources: 3, differences: [] },
  delivered: new Set(["instance/i-1", "instance/i-2", "instance/i-3"]),
  statements: [],
  ...over,
});

const scenario = (expect: Scenario["expect"]): Scenario =>
  defineScenario({ name: "t", summary: "t", faults: [], needs: [], expect, goldenSeeds: [] });

const differs = (id: string, missingCreate = false) => ({
  resource: `instance/${id}`,
  missingCreate,
  lines: [{ line: "p/vcpus", oracle: "1.00 (1.000000)", export: "-" }],
});

const failed = (checks: ReturnType<typeof scenarioChecks>) =>
  checks.filter((c) => c.status === "fail").map((c) => [c.text, ...c.details]);

describe("scenarioChecks", () => {
  test("an equal month passes every check", () => {
    const checks = scenarioChecks(scenario({ comparison: "equal" }), observed());
    expect(failed(checks)).toEqual([]);
    expect(passed(checks)).toBe(true);
  });

  test("a differing resource fails, named with its lines; a stored count off the oracle's is named", () => {
    const checks = scenarioChecks(
      scenario({ comparison: "equal" }),
      observed({
        comparison: { resources: 3, differences: [differs("i-2")] },
        stored: [{ project_id: "p", event_type: "compute.instance.create.end", count: 2 }],
      }),
    );
    expect(failed(checks)).toEqual([
      [
        "stored events per project and type equal the oracle's counts (3 events)",
        "p compute.instance.create.end: stored 2, the oracle counts 3",
      ],
      [
        "the bill equals the oracle: 3 resources compared, none differs",
        "instance/i-2: p/vcpus oracle 1.00 (1.000000) export -",
      ],
    ]);
    expect(passed(checks)).toBe(false);
  });

  test("missing-create: exactly the marked differ, each marked, warned once per history read", () => {
    const ok = observed({
      oracle: oracle(["i-1", "i-2"]),
      comparison: { resources: 3, differences: [differs("i-1", true), differs("i-2", true)] },
      run: { ...observed().run, warnings: { metering: 2 }, codes: { history_starts_without_create: 2 } },
    });
    expect(failed(scenarioChecks(scenario({ comparison: "marked-missing-create" }), ok))).toEqual([]);
    const unmarked = {
      ...ok,
      comparison: { resources: 3, differences: [differs("i-1", true), differs("i-3")] },
    };
    expect(failed(scenarioChecks(scenario({ comparison: "marked-missing-create" }), unmarked))).toEqual([
      [
        "exactly the 2 resources the oracle marks missing-create differ, each marked",
        "unmarked: instance/i-3: p/vcpus oracle 1.00 (1.000000) export -",
        "instance/i-2 is marked and does not differ",
      ],
    ]);
  });

  test("a warning the scenario does not cause fails", () => {
    const run = { ...observed().run, warnings: { counter: 4 } };
    expect(failed(scenarioChecks(scenario({ comparison: "equal" }), observed({ run })))).toEqual([
      ["the run records no warning beyond those the scenario causes", "counter=4"],
    ]);
  });

  test("duplicates expected and none counted fails", () => {
    expect(
      failed(scenarioChecks(scenario({ comparison: "equal", duplicatesDeduplicated: true }), observed())),
    ).toEqual([["ingest stored each repeated event once (0 duplicates)", "no duplicate was counted"]]);
  });

  describe("late events before corrections exist", () => {
    const late = {
      held: new Set(["instance/i-1"]),
      touched: new Set(["instance/i-1", "instance/i-2"]),
      startsLate: 1,
      detected: [{ resource: "instance/i-1", events: 1 }],
    };
    const run = { ...observed().run, warnings: { metering: 1 }, codes: { history_starts_without_create: 1 } };

    test("the finalized bill may differ where a held event lies; the correction is pending", () => {
      const checks = scenarioChecks(
        scenario({ comparison: "equal", lateCorrected: true }),
        observed({ late, run, comparison: { resources: 3, differences: [differs("i-2")] } }),
      );
      expect(failed(checks)).toEqual([]);
      expect(checks.filter((c) => c.status === "pending").length).toBe(1);
      expect(passed(checks)).toBe(true);
    });

    test("a difference elsewhere, an unnamed late resource and a wrong warning count each fail", () => {
      const checks = scenarioChecks(
        scenario({ comparison: "equal", lateCorrected: true }),
        observed({
          late: { ...late, detected: [], startsLate: 2 },
          run,
          comparison: { resources: 3, differences: [differs("i-3")] },
        }),
      );
      expect(failed(checks)).toEqual([
        [
          "detect-late names every resource with a held event (1)",
          "instance/i-1 has a held event and is not named",
        ],
        [
          "the finalized run warns history_starts_without_create once per history whose create came late (2)",
          "warned 1 times",
        ],
        [
          "the finalized bill differs from the oracle only on resources with held events (1 of 2)",
          "instance/i-3: p/vcpus oracle 1.00 (1.000000) export -",
        ],
      ]);
    });
  });
});

describe("late events with a correction", () => {
  const late = {
    held: new Set(["instance/i-1"]),
    touched: new Set(["instance/i-1"]),
    startsLate: 1,
    detected: [{ resource: "instance/i-1", events: 1 }],
  };
  const run = { ...observed().run, warnings: { metering: 1 }, codes: { history_starts_without_create: 1 } };
  const output = {
    ...run,
    runId: "c",
    correctsRunId: "r",
    deltas: 3,
    adjustmentDeltas: 0,
    creditNotes: 1,
    codes: {},
  };
  const seen = (over: Partial<Observed> = {}): Observed =>
    observed({
      late,
      run,
      finalizedComparison: { resources: 3, differences: [differs("i-1")] },
      statements: [{ cloud: "cloud-1", project_id: "p", total: "10.00" }],
      correction: {
        output,
        again: "no deltas: the finalized numbers of 2026-10 stand",
        creditNotes: [{ cloud: "cloud-1", project_id: "p", total: "-1.50" }],
        correctedLines: { "cloud-1/p": "8.50" },
      },
      ...over,
    });
  const lateScenario = scenario({ comparison: "equal", lateCorrected: true });

  test("a correction that closes the difference passes every check", () => {
    const checks = scenarioChecks(lateScenario, seen());
    expect(failed(checks)).toEqual([]);
    expect(checks.map((c) => c.text)).toContain(
      "a correction books the late events: 3 deltas in 1 credit notes",
    );
  });

  test("compare's lines kept at their finalized quantity are no difference in money", () => {
    const checks = scenarioChecks(
      lateScenario,
      seen({ comparison: { resources: 3, differences: [], kept: 2 } }),
    );
    expect(failed(checks)).toEqual([]);
    expect(checks.map((c) => c.text)).toContain(
      "the corrected bill equals the oracle to the cent: 3 resources compared, none differs (2 lines keep their finalized quantity: their amount did not move)",
    );
  });

  test("a credit-note line with a zero delta fails, named, its own or an attributed tenant's", () => {
    const item = (id: string, delta: string) => ({
      resource_type: "instance",
      resource_id: id,
      dimensions: { vcpus: { delta: "-1.50" }, disk_gb: { delta } },
    });
    const checks = scenarioChecks(
      lateScenario,
      seen({
        correction: {
          output,
          again: "no deltas: the finalized numbers of 2026-10 stand",
          creditNotes: [
            {
              cloud: "cloud-1",
              project_id: "p",
              total: "-1.50",
              line_items: [item("i-1", "0.00")],
              related_costs: [{ project_id: "t", total: "-1.50", line_items: [item("i-2", "0.00")] }],
            },
          ],
          correctedLines: { "cloud-1/p": "8.50" },
        },
      }),
    );
    expect(failed(checks)).toEqual([
      [
        "no credit-note line has a zero delta: 4 lines in 1 credit notes, each moved by a cent at least",
        "credit note cloud-1/p: instance/i-1 disk_gb has a delta of 0.00",
        "credit note cloud-1/p: related t instance/i-2 disk_gb has a delta of 0.00",
      ],
    ]);
  });

  test("a credit note off its project's corrected lines, a second correction with deltas, and a priced difference fail", () => {
    const checks = scenarioChecks(
      lateScenario,
      seen({
        comparison: { resources: 3, differences: [differs("i-1")] },
        correction: {
          output,
          again: "run c2 completed as a correction of run c",
          creditNotes: [{ cloud: "cloud-1", project_id: "p", total: "-1.00" }],
          correctedLines: { "cloud-1/p": "8.50" },
        },
      }),
    );
    expect(failed(checks)).toEqual([
      [
        "after finalizing the correction, correct again finds no deltas",
        "it said: run c2 completed as a correction of run c",
      ],
      [
        "each of the 1 credit notes is its project's corrected lines less its finalized statement",
        "cloud-1/p: finalized 10.00 + credit note -1.00 is not the corrected 8.50",
      ],
      [
        "the corrected bill equals the oracle to the cent: 3 resources compared, none differs",
        "instance/i-1: p/vcpus oracle 1.00 (1.000000) export -",
      ],
    ]);
  });
});

describe("scenarioChecks with a registry", () => {
  const plan: RegistryPlan = {
    virtual: [{ platform: "partner", external_id: "n", name: "n" }],
    relations: [
      {
        from: { tenant: 0 },
        to: { virtual: "partner/n" },
        type: "managed_by",
        adjustments: [
          { type: "discount", rate: "0.1", scope: "all" },
          { type: "kickback", rate: "0.1", scope: "all" },
        ],
      },
    ],
  };
  const adjusting = defineScenario({
    name: "t",
    summary: "t",
    faults: [],
    needs: ["registry"],
    registry: plan,
    expect: { comparison: "equal", adjusted: true },
    goldenSeeds: [],
  });
  const at = "2026-10-01T00:00:00.000Z";
  const kickbacks = { beneficiaries: [{ beneficiary: "n", kickback_total: "0.90" }] };
  const registered = (over: Partial<Observed> = {}): Observed =>
    observed({
      run: {
        runId: "r",
        candidates: 3,
        usageRecords: 3,
        ratedRecords: 9,
        warnings: { metering: 0, counter: 0, unregistered_projects: 0 },
        codes: {},
      },
      comparison: {
        resources: 3,
        differences: [],
        statements: { compared: "statements", statements: 2, settlements: 1, differences: [] },
      },
      statements: [
        {
          cloud: "cloud-1",
          project_id: "p",
          total: "9.00",
          base_cost: "10.00",
          adjustments: [
            { type: "discount", amount: "-1.00" },
            { type: "kickback", amount: "0.90" },
          ],
        },
        {
          cloud: "garden-1",
          project_id: "alpha",
          total: "5.00",
          related_costs: [{ project_id: "q", total: "5.00" }],
        },
      ],
      oracle: {
        ...oracle(),
        counts: [{ project_id: "q", event_type: "compute.instance.create.end", count: 3 }],
      },
      stored: [{ project_id: "q", event_type: "compute.instance.create.end", count: 3 }],
      registry: {
        made: {
          plan,
          snapshot: {
            projects: [
              { id: "1", platform: "gardener", cloud: "garden-1", external_id: "alpha" },
              { id: "2", platform: "platform_a", cloud: "cloud-1", external_id: "q" },
            ],
            relations: [
              {
                id: "r1",
                source_id: "1",
                target_id: "2",
                relation_type: "infrastructure_tenant",
                metadata: {},
                valid_from: at,
                valid_to: null,
              },
            ],
            adjustment_relation_types: ["managed_by", "member_of"],
            adjustment_depth: 3,
          },
          registered: { projects: 2, relations: 1 },
          made: { projects: 1, relations: 1, adjustments: 2 },
        },
        kickbacks: { reported: kickbacks, exported: kickbacks },
      },
      ...over,
    });

  test("statements equal to the oracle's, each type billed, the tenant on its manager: pass", () => {
    expect(failed(scenarioChecks(adjusting, registered()))).toEqual([]);
  });

  test("a differing statement, an unregistered project and a tenant billed on its own fail, named", () => {
    const base = registered();
    const checks = scenarioChecks(
      adjusting,
      registered({
        run: { ...base.run, warnings: { ...base.run.warnings, unregistered_projects: 1 } },
        comparison: {
          resources: 3,
          differences: [],
          statements: {
            compared: "statements",
            statements: 2,
            settlements: 1,
            differences: [
              { subject: "statement cloud-1/p", lines: [{ line: "total", oracle: "9.00", export: "9.10" }] },
            ],
          },
        },
        statements: [...base.statements, { cloud: "cloud-1", project_id: "q", total: "5.00" }],
      }),
    );
    expect(failed(checks)).toEqual([
      ["the run records no warning beyond those the scenario causes", "unregistered_projects=1"],
      [
        "the statements equal the oracle's as the registry attributes and adjusts them: 2 statements with 2 adjustment lines and 1 kickback settlements compared",
        "statement cloud-1/p: total oracle 9.00 export 9.10",
      ],
      [
        "each cluster manager's statement carries its infrastructure tenant, which has none of its own: alpha bills q",
        "q is not on alpha's statement alone",
      ],
    ]);
  });
});
