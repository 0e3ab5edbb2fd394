import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Check } from "./check.ts";
import { passed } from "./checks.ts";
import type { StageRunner } from "./month-delivery.ts";
import { Programs } from "./programs.ts";
import type { StageProgress } from "./stage-progress.ts";
import { compareStage } from "./stages/compare.ts";
import { correctStage } from "./stages/correct.ts";
import { countersStage } from "./stages/counters.ts";
import { exportStage } from "./stages/export.ts";
import { kickbacksStage } from "./stages/kickbacks.ts";
import { lateStage } from "./stages/late.ts";
import { finalizeStage, meterStage } from "./stages/meter.ts";
import { monthStage, releaseStage } from "./stages/month.ts";
import { checksStage } from "./stages/observe.ts";
import { pricingStage } from "./stages/pricing.ts";
import { registryStage } from "./stages/registry.ts";
import { reportStage } from "./stages/report.ts";
import {
  need,
  pricingModelPath,
  type ScenarioRun,
  type ScenarioRunOptions,
  type StageReport,
  scenarioCloud,
  seconds,
} from "./stages/run-state.ts";
import { stackStage, syncFilesStage } from "./stages/stack.ts";
import { runStages, type Stage } from "./stages/stage.ts";

export { pricingModelPath, type ScenarioRunOptions, scenarioCloud };

/**
 * A scenario month's stages, in order (decision 529): each runs when the scenario needs it and says
 * so in one line with its time (`stages/stage.ts`); the month's delivery and the held share's release
 * report their own steps (generate and deliver, publish and collect, outage, sync).
 */
export const scenarioStages: readonly Stage[] = [
  syncFilesStage,
  stackStage,
  monthStage,
  registryStage,
  pricingStage,
  countersStage,
  meterStage,
  finalizeStage,
  releaseStage,
  lateStage,
  correctStage,
  exportStage,
  compareStage,
  kickbacksStage,
  checksStage,
  reportStage,
];

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

/** A stage's report line: its name, what it did, its time. */
export function stageLine(stage: string, text: string, ms: number): string {
  return `  ${stage.padEnd(9)} ${text} (${seconds(ms)})`;
}

/** The run's progress, each report line also kept for report.txt. */
function recorded(progress: StageProgress, said: string[]): StageProgress {
  return {
    ...progress,
    end: (line) => {
      said.push(line);
      progress.end(line);
    },
    print: (line) => {
      said.push(line);
      progress.print(line);
    },
  };
}

/** A fresh run in `options.dir`: an earlier run's artefacts there would mix with this one's. */
function startRun(options: ScenarioRunOptions, progress: StageProgress): ScenarioRun {
  const month = join(options.dir, "month");
  const exportDir = join(options.dir, "export");
  for (const sub of [month, exportDir, join(options.dir, "logs")])
    rmSync(sub, { recursive: true, force: true });
  mkdirSync(month, { recursive: true });
  return {
    options,
    began: performance.now(),
    dirs: {
      month,
      export: exportDir,
      finalized: join(exportDir, "finalized"),
      corrected: join(exportDir, "corrected"),
      registry: join(month, "registry.json"),
    },
    programs: new Programs(join(options.dir, "logs")),
    progress,
    stages: [],
  };
}

/** The line before the stages: what is run and how the month travels. */
function headerLine(options: ScenarioRunOptions): string {
  const { scenario, seed, period, tenants } = options;
  const faults = scenario.faults.length === 0 ? "no faults" : `faults ${scenario.faults.join(",")}`;
  const path =
    options.via === "broker"
      ? "published on RabbitMQ by the simulator, carried by the collector to the Reporting API"
      : "events posted from the simulator's files to the ingest API";
  return `scenario ${scenario.name}: seed ${seed}, ${period.name}, ${tenants} tenants, ${faults}; ${path}`;
}

/**
 * Runs one scenario month end to end through our programs, each its own process: the stages of
 * `scenarioStages` that the scenario needs, then the verdict; `report.txt` and `result.json` beside the
 * artefacts. A stage that fails ends the run with its name and words; the stack always stops.
 */
export async function runScenario(options: ScenarioRunOptions): Promise<ScenarioResult> {
  const said: string[] = [];
  const run = startRun(options, recorded(options.progress, said));
  const { scenario, seed, period } = options;
  let current = "";
  const step: StageRunner = async (name, work, describe) => {
    current = name;
    run.progress.begin(name);
    const start = performance.now();
    const value = await work();
    const ms = Math.round(performance.now() - start);
    const line = stageLine(name, describe(value), ms);
    run.stages.push({ stage: name, ms, line });
    run.progress.end(line);
    return value;
  };
  const finish = (result: Omit<ScenarioResult, "totalMs">): ScenarioResult => {
    const full = { ...result, totalMs: Math.round(performance.now() - run.began) };
    for (const line of verdictLines(scenario.name, seed, full)) run.progress.print(line);
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
  run.progress.print(headerLine(options));
  try {
    await runStages(scenarioStages, run, step);
    const checks = need(run, "checks");
    const result = finish({ passed: passed(checks), stages: run.stages, checks });
    await options.hold?.(need(run, "stack"));
    return result;
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    return finish({ passed: false, stages: run.stages, checks: [], failure: { stage: current, message } });
  } finally {
    await run.delivery?.stop();
    await run.stack?.stop();
  }
}
