import { readFileSync } from "node:fs";
import { join, relative } from "node:path";
import postgres from "postgres";
import { readRatedCsv } from "../../../lib/billing/compare/rated-csv.ts";
import type { OracleCount } from "../../../lib/billing/simulator/oracle.ts";
import { oracleBill } from "../../../lib/billing/simulator/oracle-bill/oracle-bill.ts";
import { readOraclePrices } from "../../../lib/billing/simulator/oracle-bill/oracle-prices.ts";
import { type Decimal, decimal, formatMoney, zero } from "../../../lib/foundation/money/decimal.ts";
import type { Period } from "../../../lib/foundation/time/period.ts";
import { type Observed, passed, scenarioChecks } from "../checks.ts";
import { type GoldenMonth, goldenDir, goldenPath, readGolden, writeGolden } from "../golden-month.ts";
import { pricingSeen } from "../pricing-checks.ts";
import { billedMembers } from "../sync-checks.ts";
import { keepSyncEvents } from "../sync-stage.ts";
import { resourcesOf } from "./late.ts";
import { need, repositoryRoot, type ScenarioRun, scenarioCloud } from "./run-state.ts";
import type { SteppedStage } from "./stage.ts";

async function storedCounts(url: string, cloud: string, period: Period): Promise<OracleCount[]> {
  const sql = postgres(url, { max: 1, onnotice: () => {} });
  try {
    // The platform's notifications, which the oracle counts; a sync's events are checked by its stages.
    return await sql<OracleCount[]>`select project_id, event_type, count(*)::int as count from events
      where cloud = ${cloud} and timestamp >= ${period.from} and timestamp < ${period.to}
      and source <> 'reconciliation'
      group by project_id, event_type order by project_id, event_type`;
  } finally {
    await sql.end({ timeout: 5 });
  }
}

/** Per `<cloud>/<project_id>`: what the lines of an export's rated.csv add up to. */
function projectTotals(dir: string): Record<string, string> {
  const totals = new Map<string, Decimal>();
  for (const row of readRatedCsv(readFileSync(join(dir, "rated.csv"), "utf8"))) {
    const key = `${row.cloud}/${row.project_id}`;
    totals.set(key, (totals.get(key) ?? zero).plus(decimal(row.amount)));
  }
  return Object.fromEntries([...totals].map(([key, amount]) => [key, formatMoney(amount)]));
}

/** Everything the checks read, from what the stages found and what the stack holds now. */
async function observe(run: ScenarioRun): Promise<Observed> {
  const stack = need(run, "stack");
  const delivery = need(run, "delivery");
  const generated = need(run, "generated");
  const exported = need(run, "exported");
  const compared = need(run, "compared");
  const { statements, creditNotes } = exported;
  if (run.correction !== undefined)
    run.correction = { ...run.correction, creditNotes, correctedLines: projectTotals(exported.standingDir) };
  const stored = await storedCounts(stack.reportingDbUrl, scenarioCloud, run.options.period);
  const ingest = await delivery.totals();
  const collector = delivery.collector();
  const outage = delivery.outage();
  const delivered = delivery.cluster?.();
  const cluster =
    delivered === undefined || run.workerKill === undefined
      ? delivered
      : { ...delivered, workerKill: run.workerKill };
  const seenSyncs = run.drive?.seen();
  if (seenSyncs !== undefined) await keepSyncEvents(stack.reportingDbUrl, scenarioCloud, run.options.dir);
  const syncs =
    seenSyncs === undefined
      ? undefined
      : {
          ...seenSyncs,
          billed: billedMembers(readRatedCsv(readFileSync(join(exported.standingDir, "rated.csv"), "utf8"))),
        };
  const { late, correction, registry, kickbacks, pricingModel } = run;
  // A model of the scenario's own: the oracle's own bill of the month, whose findings the pricing and
  // money-edges checks count (decisions 544, 546).
  const bill =
    pricingModel === undefined
      ? undefined
      : oracleBill(
          generated.oracle,
          readOraclePrices(readFileSync(pricingModel, "utf8")),
          registry?.snapshot,
        );
  const pricing = bill === undefined ? undefined : pricingSeen(bill);
  const edges = bill !== undefined && run.options.scenario.expect.edges === true ? { bill } : undefined;
  return {
    oracle: generated.oracle,
    stored,
    ingest,
    run: need(run, "meter"),
    comparison: compared.standing,
    ...(collector === undefined ? {} : { collector }),
    ...(outage === undefined ? {} : { outage }),
    ...(cluster === undefined ? {} : { cluster }),
    ...(syncs === undefined ? {} : { syncs }),
    ...(late === undefined ? {} : { finalizedComparison: compared.finalized }),
    statements,
    ...(correction === undefined ? {} : { correction }),
    delivered: resourcesOf([...generated.published, ...generated.held]),
    ...(late === undefined ? {} : { late }),
    ...(registry === undefined || kickbacks === undefined ? {} : { registry: { made: registry, kickbacks } }),
    ...(pricing === undefined ? {} : { pricing }),
    ...(edges === undefined ? {} : { edges }),
  };
}

/**
 * A golden seed's totals beside the kept month's; with `writeGolden`, written as the golden month
 * when the run passes (never for a scenario that bills as another's).
 */
function golden(run: ScenarioRun, observed: Observed): Observed["golden"] {
  const { scenario, seed, period, tenants } = run.options;
  const absolute = goldenPath(run.options.goldenDir ?? goldenDir, scenario.goldenOf ?? scenario.name, seed);
  const path = absolute.startsWith(repositoryRoot) ? relative(repositoryRoot, absolute) : absolute;
  const { statements, creditNotes } = need(run, "exported");
  const now: GoldenMonth = {
    scenario: scenario.name,
    seed,
    period: period.name,
    tenants,
    statements: Object.fromEntries(statements.map((s) => [`${s.cloud}/${s.project_id}`, s.total])),
    credit_notes: Object.fromEntries(creditNotes.map((n) => [`${n.cloud}/${n.project_id}`, n.total])),
  };
  if (run.options.writeGolden === true && scenario.goldenOf !== undefined) {
    run.progress.print(`golden month not written to ${path}: it is scenario ${scenario.goldenOf}'s`);
  } else if (run.options.writeGolden === true) {
    // Only a month that proves itself becomes the reference.
    if (passed(scenarioChecks(scenario, observed))) {
      writeGolden(absolute, now);
      run.progress.print(`golden month written to ${path}`);
    } else run.progress.print(`golden month not written to ${path}: the run does not pass`);
  }
  return { path, kept: readGolden(absolute), now };
}

/** The checks of the scenario over what the run observed (not a reported stage: the verdict lists them). */
export const checksStage: SteppedStage = {
  name: "checks",
  async steps(run) {
    const observed = await observe(run);
    const { scenario, seed } = run.options;
    if (scenario.goldenSeeds.includes(seed)) observed.golden = golden(run, observed);
    run.checks = scenarioChecks(scenario, observed);
  },
};
