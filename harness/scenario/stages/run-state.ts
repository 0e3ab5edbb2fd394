/**
 * What one scenario run holds while its stages run (decision 529): what it was asked, where its
 * artefacts go, and what each stage found, for the stages after it, the checks and the report. Each
 * stage reads what it needs with `need`, so a stage listed before its inputs fails loudly.
 */
import { join } from "node:path";
import type { Comparison } from "../../../lib/billing/compare/compare-oracle.ts";
import type { Period } from "../../../lib/foundation/time/period.ts";
import type { Check } from "../check.ts";
import type { Observed, Total } from "../checks.ts";
import type { RunOutput } from "../engine-output.ts";
import type { Generated, MonthDelivery, Via } from "../month-delivery.ts";
import type { Programs } from "../programs.ts";
import { adjustmentWalk, type RegistryMade } from "../registry-plan.ts";
import type { Capability, Scenario } from "../scenario.ts";
import type { ScenarioStack } from "../scenario-stack.ts";
import type { StageProgress } from "../stage-progress.ts";
import type { SyncSetup, syncDrive } from "../sync-stage.ts";
import type { WorkerKillSeen } from "../worker-kill.ts";

const root = join(import.meta.dir, "../../..");
export const pricingModelPath = join(root, "pricing/default.yaml");
export const counterSourcesPath = join(root, "pricing/counter-sources.yaml");
/** The repository's root: golden paths are shown relative to it. */
export const repositoryRoot = root;

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

/** What the export stage wrote: the finalized statements, a correction's credit notes, the standing export. */
export interface Exported {
  statements: Total[];
  creditNotes: Total[];
  standingDir: string;
}

/** The comparisons of the compare stage: the finalized bill's, and the standing one's (the corrected bill). */
export interface Compared {
  finalized: Comparison;
  standing: Comparison;
}

/** One scenario run in progress. */
export interface ScenarioRun {
  readonly options: ScenarioRunOptions;
  readonly began: number;
  readonly dirs: {
    month: string;
    export: string;
    finalized: string;
    corrected: string;
    /** The registry snapshot `simulator compare --registry` reads. */
    registry: string;
  };
  readonly programs: Programs;
  /** Report lines go here, and into report.txt. */
  readonly progress: StageProgress;
  /** Each reported stage's line and time, in order. */
  readonly stages: StageReport[];
  syncSetup?: SyncSetup;
  stack?: ScenarioStack;
  drive?: ReturnType<typeof syncDrive>;
  delivery?: MonthDelivery;
  generated?: Generated;
  registry?: RegistryMade;
  /** The pricing model the run rates with, when the scenario brings its own (`stages/pricing.ts`). */
  pricingModel?: string;
  meter?: RunOutput;
  /** On the clustered stack: the worker killed while the month was metered, and what followed. */
  workerKill?: WorkerKillSeen;
  late?: Observed["late"];
  correction?: Observed["correction"];
  exported?: Exported;
  compared?: Compared;
  kickbacks?: { reported: unknown; exported: unknown };
  checks?: Check[];
}

/** What an earlier stage left in the run; a stage listed before it is a mistake in the list. */
export function need<K extends keyof ScenarioRun>(run: ScenarioRun, key: K): NonNullable<ScenarioRun[K]> {
  const value = run[key];
  if (value === undefined || value === null)
    throw new Error(`the stage list runs a stage before ${key} is known`);
  return value as NonNullable<ScenarioRun[K]>;
}

/** The pricing model the run rates with: the scenario's own, or `pricing/default.yaml`. */
export const runPricingModel = (run: ScenarioRun) => run.pricingModel ?? pricingModelPath;

/** The variables every engine command of the run reads. */
export function engineEnv(run: ScenarioRun): Record<string, string> {
  const stack = need(run, "stack");
  return {
    SVC_ENGINE_DB_URL: stack.engineDbUrl,
    SVC_ENGINE_REPORTING_DB_URL: stack.reportingDbUrl,
    SVC_ENGINE_PRICING_MODEL: runPricingModel(run),
    SVC_ENGINE_COUNTER_SOURCES: counterSourcesPath,
    SVC_ENGINE_VM_URL: stack.vmUrl,
    SVC_ENGINE_ADJUSTMENT_RELATION_TYPES: adjustmentWalk.relationTypes.join(","),
    SVC_ENGINE_ADJUSTMENT_DEPTH: String(adjustmentWalk.depth),
  };
}

/**
 * `--workers 2` on the clustered stack (issue 35: the month metered and corrected by two worker
 * processes, decisions 470, 471); one process elsewhere.
 */
export const engineWorkers = (run: ScenarioRun): string[] =>
  need(run, "stack").cluster === undefined ? [] : ["--workers", "2"];

/** Seconds as a report line shows them. */
export const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
