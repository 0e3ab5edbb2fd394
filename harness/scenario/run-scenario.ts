// size: split pending (issue 27, helper commands)
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join, relative } from "node:path";
import postgres from "postgres";
import type { Comparison } from "../../lib/billing/compare/compare-oracle.ts";
import { readRatedCsv } from "../../lib/billing/compare/rated-csv.ts";
import { readComparisonReport } from "../../lib/billing/compare/read-comparison-report.ts";
import type { OracleCount } from "../../lib/billing/simulator/oracle.ts";
import { trafficImportSeries } from "../../lib/billing/traffic/traffic-import.ts";
import { exitCodes } from "../../lib/foundation/cli/exit-codes.ts";
import { type Decimal, decimal, formatMoney, sum, zero } from "../../lib/foundation/money/decimal.ts";
import type { Period } from "../../lib/foundation/time/period.ts";
import { renderInChromium } from "../browser/headless-chromium.ts";
import type { ServiceName } from "../services/services.ts";
import { loadSeries } from "../traffic/load-series.ts";
import type { Check } from "./check.ts";
import { type Observed, passed, scenarioChecks, type Total } from "./checks.ts";
import { type RunOutput, readCorrectionOutput, readLateOutput, readRunOutput } from "./engine-output.ts";
import { type GoldenMonth, goldenDir, goldenPath, readGolden, writeGolden } from "./golden-month.ts";
import { busDelivery, fileDelivery, type MonthDelivery, type Via } from "./month-delivery.ts";
import { ProgramFailure, Programs } from "./programs.ts";
import { adjustmentWalk, applyRegistryPlan, gardenCloud, type RegistryMade } from "./registry-plan.ts";
import { eventsPerDay, heldPerDay, liveResources, type ReportData } from "./report-data.ts";
import { renderReport } from "./report-html.ts";
import type { Capability, Scenario } from "./scenario.ts";
import { type ScenarioStack, startScenarioStack } from "./scenario-stack.ts";
import type { StageProgress } from "./stage-progress.ts";
import { billedMembers } from "./sync-checks.ts";
import { keepSyncEvents, prepareSyncs, syncDrive } from "./sync-stage.ts";
import { serviceLabels } from "./up.ts";

const root = join(import.meta.dir, "../..");
export const pricingModelPath = join(root, "pricing/default.yaml");
const counterSourcesPath = join(root, "pricing/counter-sources.yaml");

/** The cloud every scenario month is simulated in. */
export const scenarioCloud = "cloud-1";

export interface ScenarioRunOptions {
  scenario: Scenario;
  seed: number;
  period: Period;
  tenants: number;
  /** Where the artefacts go: `month/` (simulator files), `export/`, `logs/`, `report.txt`, `result.json`. */
  dir: string;
  progress: StageProgress;
  /** What is built beyond the file path (`capabilities.ts`). */
  capabilities: ReadonlySet<Capability>;
  /** How the month reaches the Reporting API. */
  via: Via;
  /** An event id withheld from delivery (the file path): shows how a lost event shows in the bill. */
  dropEvent?: string;
  /** Where golden months are kept (default `fixtures/golden`). */
  goldenDir?: string;
  /** Write this run's totals as the golden month instead of comparing with it. */
  writeGolden?: boolean;
  /** Render `report.html` in headless Chromium into `report.png`, failing on a console error. */
  screenshot?: boolean;
  /** Where the harness reads `SVC_TEST_*` service overrides (default: process.env). */
  env?: Record<string, string | undefined>;
  /** Called with the stack and how to reach it after the checks; the stack stops when it resolves (`--keep`). */
  hold?: (stack: ScenarioStack) => Promise<void>;
}

export interface StageReport {
  stage: string;
  ms: number;
  line: string;
}

/** A run's outcome: what each stage said and took, and what was proven. */
export interface ScenarioResult {
  passed: boolean;
  stages: StageReport[];
  checks: Check[];
  /** The stage that failed and why, when one did (the run then has no checks). */
  failure?: { stage: string; message: string };
  totalMs: number;
}

/** What the run was asked for, kept in `result.json` beside its outcome (`explain` reads it). */
export interface RunAsked {
  scenario: string;
  seed: number;
  period: string;
  tenants: number;
  dropEvent?: string;
}

const marks = { pass: "pass   ", fail: "FAIL   ", pending: "pending" } as const;

/** The checks, each with its details on failure, then `PASS` or `FAIL` with the time taken. */
export function verdictLines(
  name: string,
  seed: number,
  result: Omit<ScenarioResult, "passed"> & { passed: boolean },
): string[] {
  const lines: string[] = [];
  if (result.failure !== undefined) lines.push(`  ${result.failure.stage} failed: ${result.failure.message}`);
  if (result.checks.length > 0) lines.push("checks");
  for (const c of result.checks) {
    lines.push(`  ${marks[c.status]} ${c.text}`);
    for (const d of c.details) lines.push(`            ${d}`);
  }
  lines.push(`${result.passed ? "PASS" : "FAIL"} ${name} seed ${seed} in ${seconds(result.totalMs)}`);
  return lines;
}

const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

/** A stage's report line: its name, what it did, its time. */
export function stageLine(stage: string, text: string, ms: number): string {
  return `  ${stage.padEnd(9)} ${text} (${seconds(ms)})`;
}

interface EventLine {
  resource_type: string;
  resource_id: string;
  timestamp: string;
}

const resourceOf = (e: EventLine) => `${e.resource_type}/${e.resource_id}`;
const parseLines = (lines: readonly string[]) => lines.map((l) => JSON.parse(l) as EventLine);

function resourcesOf(lines: readonly string[]): Set<string> {
  return new Set(parseLines(lines).map(resourceOf));
}

/**
 * What the held share should do to the finalized run: the resources with a held event dated inside the
 * month (`detect-late` names exactly those), those with any held event (a held transition before the
 * month moves the bill too), and how many histories the run read without their first
 * event (each warned `history_starts_without_create`: its earliest event was held, a later one was not).
 */
function lateShare(published: readonly string[], held: readonly string[], period: Period) {
  const first = new Map<string, { at: string; held: boolean }>();
  const seen = new Set<string>();
  for (const [isHeld, lines] of [
    [false, published],
    [true, held],
  ] as const) {
    for (const e of parseLines(lines)) {
      const key = resourceOf(e);
      if (!isHeld) seen.add(key);
      const known = first.get(key);
      if (known === undefined || e.timestamp < known.at) first.set(key, { at: e.timestamp, held: isHeld });
    }
  }
  const inMonth = parseLines(held).filter((e) => e.timestamp >= period.from && e.timestamp < period.to);
  return {
    held: new Set(inMonth.map(resourceOf)),
    touched: resourcesOf(held),
    startsLate: [...first].filter(([key, f]) => f.held && seen.has(key)).length,
  };
}

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

const total = (documents: readonly Total[]) => formatMoney(sum(documents.map((d) => decimal(d.total))));

/** Per `<cloud>/<project_id>`: what the lines of an export's rated.csv add up to. */
function projectTotals(dir: string): Record<string, string> {
  const totals = new Map<string, Decimal>();
  for (const row of readRatedCsv(readFileSync(join(dir, "rated.csv"), "utf8"))) {
    const key = `${row.cloud}/${row.project_id}`;
    totals.set(key, (totals.get(key) ?? zero).plus(decimal(row.amount)));
  }
  return Object.fromEntries([...totals].map(([key, amount]) => [key, formatMoney(amount)]));
}

/** The `simulator run` flags of what the scenario's cloud sends beside the default month. */
function simulatorShapeArgs(scenario: Scenario): string[] {
  const { novaFormat, extraTypes } = scenario.simulator ?? {};
  return [
    ...(novaFormat === undefined ? [] : ["--nova-format", novaFormat]),
    ...(extraTypes === undefined || extraTypes.length === 0 ? [] : ["--extra-types", extraTypes.join(",")]),
  ];
}

function warningsText(run: RunOutput): string {
  const raised = Object.entries(run.codes).filter(([, n]) => n > 0);
  return raised.length === 0 ? "none" : raised.map(([code, n]) => `${code}=${n}`).join(" ");
}

/**
 * Runs one scenario month end to end on the path built today: the simulator writes the month
 * (`simulator run --out`), its events are posted to the Reporting API's ingest route with the cloud's
 * ingest credential (the stage the broker and the collector take over), the oracle's traffic is loaded
 * into VictoriaMetrics, the engine meters, finalizes and exports the month, a held share arrives late
 * and is detected, and `simulator compare` proves the bill against the oracle. Every program runs as
 * its own process; each stage reports a line and its time through `progress`.
 */
// size: split pending (issue 27, helper commands)
export async function runScenario(options: ScenarioRunOptions): Promise<ScenarioResult> {
  const { scenario, seed, period } = options;
  // Every report line also goes to report.txt beside the artefacts.
  const said: string[] = [];
  const progress: StageProgress = {
    ...options.progress,
    end: (line) => {
      said.push(line);
      options.progress.end(line);
    },
    print: (line) => {
      said.push(line);
      options.progress.print(line);
    },
  };
  const began = performance.now();
  const stages: StageReport[] = [];
  const monthDir = join(options.dir, "month");
  const exportDir = join(options.dir, "export");
  const finalizedDir = join(exportDir, "finalized");
  const correctedDir = join(exportDir, "corrected");
  // An earlier run's artefacts in --out would mix with this one's.
  for (const sub of [monthDir, exportDir, join(options.dir, "logs")])
    rmSync(sub, { recursive: true, force: true });
  mkdirSync(monthDir, { recursive: true });
  const programs = new Programs(join(options.dir, "logs"));

  let current = "";
  const stage = async <T>(
    name: string,
    work: () => Promise<T>,
    describe: (value: T) => string,
  ): Promise<T> => {
    current = name;
    progress.begin(name);
    const start = performance.now();
    const value = await work();
    const ms = Math.round(performance.now() - start);
    const line = stageLine(name, describe(value), ms);
    stages.push({ stage: name, ms, line });
    progress.end(line);
    return value;
  };

  const faults = scenario.faults.length === 0 ? "no faults" : `faults ${scenario.faults.join(",")}`;
  progress.print(
    `scenario ${scenario.name}: seed ${seed}, ${period.name}, ${options.tenants} tenants, ${faults}; ${options.via === "broker" ? "published on RabbitMQ by the simulator, carried by the collector to the Reporting API" : "events posted from the simulator's files to the ingest API"}`,
  );

  let stack: ScenarioStack | undefined;
  let delivery: MonthDelivery | undefined;
  const finish = (result: Omit<ScenarioResult, "totalMs">): ScenarioResult => {
    const full = { ...result, totalMs: Math.round(performance.now() - began) };
    for (const line of verdictLines(scenario.name, seed, full)) progress.print(line);
    const asked: RunAsked = {
      scenario: scenario.name,
      seed,
      period: period.name,
      tenants: options.tenants,
      ...(options.dropEvent === undefined ? {} : { dropEvent: options.dropEvent }),
    };
    writeFileSync(join(options.dir, "result.json"), `${JSON.stringify({ ...asked, ...full }, null, 2)}\n`);
    writeFileSync(join(options.dir, "report.txt"), `${said.join("\n")}\n`);
    return full;
  };
  try {
    const syncSetup = scenario.needs.includes("reconcile")
      ? await prepareSyncs(options.dir, scenarioCloud)
      : undefined;
    stack = await stage(
      "stack",
      () =>
        startScenarioStack({
          programs,
          cloud: scenarioCloud,
          broker: options.via === "broker",
          admin: scenario.registry !== undefined,
          env: options.env,
          reportingEnv: syncSetup?.reportingEnv,
        }),
      (s) =>
        `${Object.entries(s.startMs)
          .map(([name, ms]) => `${serviceLabels[name as ServiceName]} ${seconds(ms ?? 0)}`)
          .join(", ")}; schemas migrated; Reporting API at ${s.reportingUrl}`,
    );
    const up = stack;
    const engineEnv = {
      SVC_ENGINE_DB_URL: up.engineDbUrl,
      SVC_ENGINE_REPORTING_DB_URL: up.reportingDbUrl,
      SVC_ENGINE_PRICING_MODEL: pricingModelPath,
      SVC_ENGINE_COUNTER_SOURCES: counterSourcesPath,
      SVC_ENGINE_VM_URL: up.vmUrl,
      SVC_ENGINE_ADJUSTMENT_RELATION_TYPES: adjustmentWalk.relationTypes.join(","),
      SVC_ENGINE_ADJUSTMENT_DEPTH: String(adjustmentWalk.depth),
    };
    const drive =
      syncSetup === undefined || up.broker === undefined
        ? undefined
        : syncDrive({
            setup: syncSetup,
            stack: up,
            collector: up.broker.collector,
            cloud: scenarioCloud,
            monthDir,
            period,
          });
    const registryPath = join(monthDir, "registry.json");
    // With a registry, the statements and kickbacks of a regular run's export are compared too, or a
    // correction's credit notes against the export of the run it corrects (`corrects`).
    const compare = async (dir: string, statements: boolean, corrects?: string): Promise<Comparison> => {
      const args = [
        "compare",
        "--export",
        dir,
        "--oracle",
        // After the syncs, the oracle with the members they booked (decision 181).
        drive?.seen()?.oraclePath ?? join(monthDir, "oracle.json"),
        "--pricing",
        pricingModelPath,
        ...(statements ? ["--registry", registryPath] : []),
        ...(corrects === undefined ? [] : ["--corrects", corrects]),
      ];
      const result = await programs.attempt("simulator", args, {});
      const lines = result.stdout.split("\n").filter((l) => l !== "");
      // Exit 3 is the comparison's "differs": a result, read below like an agreement.
      if (
        (result.code !== exitCodes.ok && result.code !== exitCodes.differs) ||
        !lines.some((l) => /^compared \d+ resources/.test(l))
      )
        throw new ProgramFailure("simulator compare", result, programs.logOf("simulator"));
      return readComparisonReport(lines);
    };
    const simulatorArgs = [
      "run",
      "--period",
      period.name,
      "--seed",
      String(seed),
      "--tenants",
      String(options.tenants),
      ...(scenario.faults.length > 0 ? ["--faults", scenario.faults.join(",")] : []),
      ...(scenario.registry === undefined ? [] : ["--register-projects"]),
      ...simulatorShapeArgs(scenario),
    ];
    const simulatorEnv: Record<string, string> =
      up.adminToken === undefined
        ? {}
        : {
            SVC_SIM_REPORTING_URL: up.reportingUrl,
            SVC_SIM_REPORTING_INSECURE: "true",
            SVC_SIM_API_TOKEN: up.adminToken,
            SVC_SIM_GARDEN_CLOUD: gardenCloud,
          };
    delivery = (options.via === "broker" ? busDelivery : fileDelivery)({
      programs,
      stack: up,
      cloud: scenarioCloud,
      simulatorArgs,
      simulatorEnv,
      monthDir,
      dropEvent: options.dropEvent,
      holdsBack: scenario.faults.includes("held-back"),
      outage: scenario.outage === true,
      ...(drive === undefined ? {} : { drive }),
      period,
    });
    const generated = await delivery.month(stage);

    let registry: RegistryMade | undefined;
    const plan = scenario.registry;
    if (plan !== undefined) {
      registry = await stage(
        "registry",
        async () => {
          const made = await applyRegistryPlan({
            reportingUrl: up.reportingUrl,
            adminToken: up.adminToken ?? "",
            cloud: scenarioCloud,
            period,
            plan,
          });
          writeFileSync(registryPath, `${JSON.stringify(made.snapshot, null, 2)}\n`);
          return made;
        },
        (r) =>
          `the simulator registered ${r.registered.projects} projects and ${r.registered.relations} infrastructure_tenant relations; ${r.made.projects} virtual projects and ${r.made.relations} relations with ${r.made.adjustments} pricing adjustments made through the Reporting API; the registry as it stands in ${registryPath}`,
      );
    }

    await stage(
      "counters",
      async () => {
        const series = trafficImportSeries(scenarioCloud, generated.oracle.traffic);
        await loadSeries(up.vmUrl, series);
        return series.length;
      },
      (n) => `${n} traffic counters imported into VictoriaMetrics from the oracle's traffic`,
    );

    const run = await stage(
      "meter",
      async () => readRunOutput(await programs.run("engine", ["run", "--period", period.name], engineEnv)),
      (r) =>
        `run ${r.runId}: ${r.candidates} candidates, ${r.usageRecords} usage records, ${r.ratedRecords} rated records; warnings: ${warningsText(r)}`,
    );

    await stage(
      "finalize",
      () => programs.run("engine", ["finalize", "--period", period.name, "--run", run.runId], engineEnv),
      (lines) => lines.join("; "),
    );

    let late: Observed["late"];
    let correction: Observed["correction"];
    if (generated.held.length > 0) {
      await delivery.held(stage, generated);
      late = await stage(
        "late",
        async () => ({
          ...lateShare(generated.published, generated.held, period),
          detected: readLateOutput(
            await programs.run("engine", ["detect-late", "--period", period.name], engineEnv),
          ),
        }),
        (l) =>
          `detect-late names ${l.detected.length} resources with events received after the month was read`,
      );
      if (options.capabilities.has("correct")) {
        correction = await stage(
          "correct",
          async () => {
            const correct = () => programs.run("engine", ["correct", "--period", period.name], engineEnv);
            const output = readCorrectionOutput(await correct());
            if (output === null) return { output, again: null };
            await programs.run(
              "engine",
              ["finalize", "--period", period.name, "--run", output.runId],
              engineEnv,
            );
            return { output, again: (await correct()).join("; ") };
          },
          (c) =>
            c.output === null
              ? "no deltas: the finalized numbers stand"
              : `run ${c.output.runId}: ${c.output.deltas} deltas and ${c.output.adjustmentDeltas} adjustment deltas in ${c.output.creditNotes} credit notes, finalized; correct again: ${c.again}`,
        );
      }
    }

    const exported = await stage(
      "export",
      async () => {
        const write = async (runId: string, dir: string) => {
          for (const format of ["csv", "json"])
            await programs.run(
              "engine",
              ["export", "--run", runId, "--format", format, "--out", dir],
              engineEnv,
            );
          return JSON.parse(readFileSync(join(dir, "run.json"), "utf8")) as {
            statements?: Total[];
            credit_notes?: Total[];
          };
        };
        const statements = (await write(run.runId, finalizedDir)).statements ?? [];
        const corrected = correction?.output ?? null;
        const creditNotes =
          corrected === null ? [] : ((await write(corrected.runId, correctedDir)).credit_notes ?? []);
        return { statements, creditNotes, standingDir: corrected === null ? finalizedDir : correctedDir };
      },
      (e) =>
        `${e.statements.length} statements billing ${total(e.statements)}${correction?.output ? `, ${e.creditNotes.length} credit notes totalling ${total(e.creditNotes)}` : ""} into ${exportDir}`,
    );

    const compared = await stage(
      "compare",
      async () => {
        const adjusted = registry !== undefined;
        // A finalized bill that a correction amends is not the oracle's: its credit notes are compared.
        const corrected = exported.standingDir !== finalizedDir;
        const finalized = await compare(finalizedDir, adjusted && !corrected);
        return {
          finalized,
          // Credit notes are compared against the registry, so only with one (`--corrects` needs it).
          standing: corrected
            ? await compare(exported.standingDir, adjusted, adjusted ? finalizedDir : undefined)
            : finalized,
        };
      },
      (c) =>
        `${
          c.standing === c.finalized
            ? `simulator compare: ${c.finalized.resources} resources, ${c.finalized.differences.length} differ`
            : `simulator compare: ${c.finalized.resources} resources; the finalized bill: ${c.finalized.differences.length} differ, the corrected bill: ${c.standing.differences.length} differ`
        }${c.standing.statements === undefined ? "" : `; ${c.standing.statements.statements} ${c.standing.statements.compared} and ${c.standing.statements.settlements} kickback settlements, ${c.standing.statements.differences.length} differ`}`,
    );

    const kickbacks =
      registry === undefined
        ? undefined
        : await stage(
            "kickbacks",
            async () => ({
              reported: JSON.parse(
                (
                  await programs.run(
                    "engine",
                    ["kickbacks", "--period", period.name, "--run", run.runId],
                    engineEnv,
                  )
                ).join("\n"),
              ) as unknown,
              exported: JSON.parse(readFileSync(join(finalizedDir, "kickbacks.json"), "utf8")) as unknown,
            }),
            (k) =>
              `engine kickbacks: ${(k.reported as { beneficiaries?: unknown[] }).beneficiaries?.length ?? 0} beneficiaries`,
          );
    const { statements, creditNotes } = exported;
    const comparison = compared.standing;
    if (correction !== undefined)
      correction = { ...correction, creditNotes, correctedLines: projectTotals(exported.standingDir) };

    const stored = await storedCounts(up.reportingDbUrl, scenarioCloud, period);
    const ingest = await delivery.totals();
    const collector = delivery.collector();
    const outage = delivery.outage();
    const seenSyncs = drive?.seen();
    if (seenSyncs !== undefined) await keepSyncEvents(up.reportingDbUrl, scenarioCloud, options.dir);
    const syncs =
      seenSyncs === undefined
        ? undefined
        : {
            ...seenSyncs,
            billed: billedMembers(
              readRatedCsv(readFileSync(join(exported.standingDir, "rated.csv"), "utf8")),
            ),
          };
    const observed: Observed = {
      oracle: generated.oracle,
      stored,
      ingest,
      run,
      comparison,
      ...(collector === undefined ? {} : { collector }),
      ...(outage === undefined ? {} : { outage }),
      ...(syncs === undefined ? {} : { syncs }),
      ...(late === undefined ? {} : { finalizedComparison: compared.finalized }),
      statements,
      ...(correction === undefined ? {} : { correction }),
      delivered: resourcesOf([...generated.published, ...generated.held]),
      ...(late === undefined ? {} : { late }),
      ...(registry === undefined || kickbacks === undefined
        ? {}
        : { registry: { made: registry, kickbacks } }),
    };
    if (scenario.goldenSeeds.includes(seed)) {
      const absolute = goldenPath(options.goldenDir ?? goldenDir, scenario.goldenOf ?? scenario.name, seed);
      const path = absolute.startsWith(root) ? relative(root, absolute) : absolute;
      const now: GoldenMonth = {
        scenario: scenario.name,
        seed,
        period: period.name,
        tenants: options.tenants,
        statements: Object.fromEntries(statements.map((s) => [`${s.cloud}/${s.project_id}`, s.total])),
        credit_notes: Object.fromEntries(creditNotes.map((n) => [`${n.cloud}/${n.project_id}`, n.total])),
      };
      if (options.writeGolden === true && scenario.goldenOf !== undefined) {
        progress.print(`golden month not written to ${path}: it is scenario ${scenario.goldenOf}'s`);
      } else if (options.writeGolden === true) {
        // Only a month that proves itself becomes the reference.
        if (passed(scenarioChecks(scenario, observed))) {
          writeGolden(absolute, now);
          progress.print(`golden month written to ${path}`);
        } else progress.print(`golden month not written to ${path}: the run does not pass`);
      }
      observed.golden = { path, kept: readGolden(absolute), now };
    }
    const checks = scenarioChecks(scenario, observed);
    const notes = new Map(creditNotes.map((n) => [`${n.cloud}/${n.project_id}`, n.total]));
    const report: ReportData = {
      scenario: scenario.name,
      summary: scenario.summary,
      seed,
      period: period.name,
      tenants: options.tenants,
      faults: scenario.faults,
      passed: passed(checks),
      totalMs: Math.round(performance.now() - began),
      stages,
      checks,
      eventsPerDay: eventsPerDay([...generated.published, ...generated.held], period),
      liveResources: liveResources(generated.oracle, period),
      projects: statements.map((s) => ({
        key: `${s.cloud}/${s.project_id}`,
        statement: s.total,
        creditNote: notes.get(`${s.cloud}/${s.project_id}`) ?? null,
        ...(s.adjustments === undefined ? {} : { base: s.base_cost ?? "", adjustments: s.adjustments }),
      })),
      late:
        late === undefined
          ? null
          : { heldPerDay: heldPerDay(generated.held, period), detected: late.detected },
      comparisons: { finalized: compared.finalized, corrected: correction?.output ? comparison : null },
    };
    const html = join(options.dir, "report.html");
    writeFileSync(html, renderReport(report));
    if (options.screenshot === true) {
      const rendered = await stage(
        "report",
        () => renderInChromium(html, { screenshot: join(options.dir, "report.png") }),
        (r) => `report.html rendered in headless Chromium into report.png, ${r.errors.length} console errors`,
      );
      checks.push({
        status: rendered.errors.length === 0 ? "pass" : "fail",
        text: "report.html renders in headless Chromium without a console error",
        details: rendered.errors,
      });
    }
    const result = finish({ passed: passed(checks), stages, checks });
    await options.hold?.(up);
    return result;
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    return finish({ passed: false, stages, checks: [], failure: { stage: current, message } });
  } finally {
    await delivery?.stop();
    await stack?.stop();
  }
}
