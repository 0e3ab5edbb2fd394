import { mkdirSync } from "node:fs";
import { resolve } from "node:path";
import { type Command, command } from "../../lib/foundation/cli/command.ts";
import { parseInteger } from "../../lib/foundation/cli/flag-values.ts";
import { NotBuiltError, Problems, UsageError } from "../../lib/foundation/cli/usage-error.ts";
import { hasEnded, type Period, parsePeriod } from "../../lib/foundation/time/period.ts";
import { chromiumPath } from "../browser/headless-chromium.ts";
import { makeTempDir } from "../process/temp-dir.ts";
import { startServices } from "../services/services.ts";
import { builtCapabilities, missingFor } from "./capabilities.ts";
import { explainResource } from "./explain-resource.ts";
import type { Via } from "./month-delivery.ts";
import { pricingModelPath, runScenario, type ScenarioResult } from "./run-scenario.ts";
import type { Capability, Scenario } from "./scenario.ts";
import type { ScenarioStack } from "./scenario-stack.ts";
import { type StageProgress, stageProgress } from "./stage-progress.ts";

/** Where the scenario commands talk: the entry script passes the process's own. */
export interface ScenarioIo {
  stdout: { isTTY?: boolean; write(text: string): unknown };
  /** Registers what Ctrl-C or SIGTERM does now (the last registration wins). */
  onInterrupt(handler: () => void): void;
  exit(code: number): never;
}

/** The month every scenario simulates unless told otherwise: fixed, so that a seed always bills alike. */
export const defaultPeriod = "2026-10";
/** Classic tenants by default, as the simulator's own default. */
export const defaultTenants = 10;

const runArgs = {
  seed: { type: "string", default: "1", description: "integer seed of the simulated month" },
  period: { type: "string", default: defaultPeriod, description: "the month, YYYY-MM; it must have ended" },
  tenants: {
    type: "string",
    default: String(defaultTenants),
    description: "classic tenants beside the two infrastructure tenants (10: about 300 resources)",
  },
  keep: {
    type: "boolean",
    default: false,
    description: "leave the stack up afterwards, with its URLs and export lines, until Ctrl-C",
  },
  out: { type: "string", description: "keep every artefact here: simulator files, exports, logs, report" },
  via: {
    type: "string",
    description:
      "broker: the simulator publishes on RabbitMQ and the collector carries the month (the default once both are built); file: the simulator's events posted to ingest",
  },
  "drop-event": {
    type: "string",
    description: "withhold this event id from delivery, to see how a lost event shows in the bill",
  },
} as const;

interface RunFlags {
  seed: string;
  period: string;
  tenants: string;
  keep: boolean;
  out?: string | undefined;
  via?: string | undefined;
  "drop-event"?: string | undefined;
}

export interface RunChoice {
  seed: number;
  period: Period;
  tenants: number;
  keep: boolean;
  out: string | null;
  /** Asked for; unset: the broker once it is built, the file path before, and for --drop-event. */
  via: Via | undefined;
  dropEvent: string | undefined;
}

/** Reads the run flags, every bad one named at once. */
export function parseRunFlags(flags: RunFlags, now: Date): RunChoice {
  const problems = new Problems();
  const seed = problems.attempt("--seed", () => parseInteger(flags.seed, { min: 0 }));
  const period = problems.attempt("--period:", () => {
    const p = parsePeriod(flags.period);
    if (!hasEnded(p, now))
      throw new RangeError(`${p.name} has not ended yet: a scenario bills an ended month`);
    return p;
  });
  const tenants = problems.attempt("--tenants", () => parseInteger(flags.tenants, { min: 1, max: 2000 }));
  if (flags.via !== undefined && flags.via !== "broker" && flags.via !== "file")
    problems.add(`--via takes broker or file, got ${JSON.stringify(flags.via)}`);
  if (flags.via === "broker" && flags["drop-event"] !== undefined)
    problems.add("--drop-event withholds an event on the file path: it cannot be used with --via broker");
  problems.throwIfAny();
  return {
    seed: seed as number,
    period: period as Period,
    tenants: tenants as number,
    keep: flags.keep,
    out: flags.out === undefined ? null : resolve(flags.out),
    via: flags.via as Via | undefined,
    dropEvent: flags["drop-event"],
  };
}

/** The lines `--keep` prints: how to reach the stack and read the month in another shell. */
function keepLines(stack: ScenarioStack, dir: string): string[] {
  return [
    "",
    "the stack stays up for investigation:",
    `  Reporting API ${stack.reportingUrl} (internal token below)`,
    `  artefacts in ${dir}`,
    `export SVC_REPORTING_DB_URL=${stack.reportingDbUrl}`,
    `export SVC_ENGINE_REPORTING_DB_URL=${stack.reportingDbUrl}`,
    `export SVC_ENGINE_DB_URL=${stack.engineDbUrl}`,
    `export SVC_ENGINE_VM_URL=${stack.vmUrl}`,
    `export SVC_REPORTING_URL=${stack.reportingUrl}`,
    `export SVC_REPORTING_INTERNAL_TOKEN=${stack.internalToken}`,
    "for example: bun run engine periods list",
    "",
    "Press Ctrl-C to stop and clean up.",
  ];
}

/** The broker and the collector once they are built: the path a deployment takes. */
function defaultVia(built: ReadonlySet<Capability>): Via {
  return built.has("broker") ? "broker" : "file";
}

/** Runs one scenario as the command line asked, and exits 0 when it passed, 1 when not. */
async function runOne(io: ScenarioIo, scenario: Scenario, choice: RunChoice): Promise<ScenarioResult> {
  const capabilities = await builtCapabilities();
  const missing = missingFor(scenario.needs, capabilities);
  if (missing !== null) throw new NotBuiltError(`scenario ${scenario.name} needs ${missing}: not built yet`);
  const via = choice.via ?? (choice.dropEvent === undefined ? defaultVia(capabilities) : "file");
  if (via === "broker" && !capabilities.has("broker"))
    throw new NotBuiltError(`--via broker needs ${missingFor(["broker"], capabilities)}: not built yet`);
  if (via === "file" && scenario.needs.includes("broker"))
    throw new UsageError(
      `scenario ${scenario.name} runs on the broker path: --via file${choice.dropEvent === undefined ? "" : " (implied by --drop-event)"} cannot carry it`,
    );
  // Without --out the artefacts live in the harness's temp dir and go with it.
  const temp = choice.out === null ? makeTempDir("scenario") : undefined;
  const dir = choice.out ?? temp?.path ?? "";
  mkdirSync(dir, { recursive: true });
  const progress: StageProgress = stageProgress(io.stdout);
  io.onInterrupt(() => {
    progress.print("interrupted: stopping the stack");
    // The harness's exit handler and reaper stop every daemon it started and remove its dirs.
    io.exit(1);
  });
  try {
    return await runScenario({
      scenario,
      seed: choice.seed,
      period: choice.period,
      tenants: choice.tenants,
      dir,
      progress,
      capabilities,
      via,
      // With --out the report is kept, and so is its picture where Chromium is installed.
      screenshot: choice.out !== null && chromiumPath() !== null,
      ...(choice.dropEvent === undefined ? {} : { dropEvent: choice.dropEvent }),
      ...(choice.keep
        ? {
            hold: (stack: ScenarioStack) =>
              new Promise<void>((release) => {
                for (const line of keepLines(stack, dir)) progress.print(line);
                io.onInterrupt(() => {
                  progress.print("stopping…");
                  release();
                });
              }),
          }
        : {}),
    });
  } finally {
    temp?.remove();
  }
}

function scenarioCommand(io: ScenarioIo, scenario: Scenario): Command {
  return command({
    name: scenario.name,
    description: scenario.summary,
    args: runArgs,
    parse: (flags) => parseRunFlags(flags, new Date()),
    run: async ({ options }) => {
      const result = await runOne(io, scenario, options);
      io.exit(result.passed ? 0 : 1);
    },
  });
}

/** `bun scenario list`: every scenario with one line, and what those not runnable yet wait for. */
function listCommand(io: ScenarioIo, scenarios: readonly Scenario[]): Command {
  return command({
    name: "list",
    description: "name every scenario with one line each",
    run: async () => {
      const built = await builtCapabilities();
      const width = Math.max(...scenarios.map((s) => s.name.length)) + 2;
      for (const s of scenarios) {
        const missing = missingFor(s.needs, built);
        io.stdout.write(
          `${s.name.padEnd(width)}${s.summary}${missing === null ? "" : ` (needs ${missing}: not built yet)`}\n`,
        );
      }
    },
  });
}

/** Runs several scenario months one after the other; each ends with its PASS or FAIL line, then a tally. */
async function runMany(
  io: ScenarioIo,
  runs: readonly { scenario: Scenario; seed: number }[],
  writeGolden: boolean,
): Promise<never> {
  const capabilities = await builtCapabilities();
  const via = defaultVia(capabilities);
  const results: string[] = [];
  io.onInterrupt(() => io.exit(1));
  // PostgreSQL and RabbitMQ start once for all the runs, each run in a database and a vhost of its own
  // (the harness's SVC_TEST_* overrides); VictoriaMetrics, quick to start, stays private to a run so
  // that one month's counters never meet another's.
  const begin = performance.now();
  const shared = await startServices({ only: via === "broker" ? ["postgres", "rabbitmq"] : ["postgres"] });
  io.stdout.write(
    `services shared by ${runs.length} runs started in ${((performance.now() - begin) / 1000).toFixed(1)} s\n\n`,
  );
  const env = {
    ...process.env,
    SVC_TEST_PG_URL: shared.postgres?.url,
    SVC_TEST_AMQP_URL: shared.rabbitmq?.url,
    SVC_TEST_AMQP_MANAGEMENT_URL: shared.rabbitmq?.managementUrl,
    SVC_TEST_VM_URL: undefined,
  };
  try {
    for (const { scenario, seed } of runs) {
      const temp = makeTempDir("scenario");
      try {
        const result = await runScenario({
          scenario,
          seed,
          period: parsePeriod(defaultPeriod),
          tenants: defaultTenants,
          dir: temp.path,
          progress: stageProgress(io.stdout),
          capabilities,
          via,
          writeGolden,
          env,
        });
        results.push(`${result.passed ? "passed" : "FAILED"} ${scenario.name} --seed ${seed}`);
      } finally {
        temp.remove();
      }
      io.stdout.write("\n");
    }
  } finally {
    await shared.stop();
  }
  const failed = results.filter((r) => r.startsWith("FAILED")).length;
  for (const line of results) io.stdout.write(`${line}\n`);
  io.stdout.write(`${results.length} scenario runs: ${results.length - failed} passed, ${failed} failed\n`);
  return io.exit(failed === 0 ? 0 : 1);
}

/** The golden seeds of the runnable scenarios (or of one). */
function goldenRuns(
  scenarios: readonly Scenario[],
  built: ReadonlySet<Capability>,
  only: string | undefined,
) {
  const chosen = scenarios.filter(
    (s) =>
      s.goldenSeeds.length > 0 &&
      (only === undefined || s.name === only) &&
      missingFor(s.needs, built) === null,
  );
  if (chosen.length === 0)
    throw new UsageError(`no runnable scenario named ${JSON.stringify(only)} keeps golden months`);
  return chosen.flatMap((scenario) => scenario.goldenSeeds.map((seed) => ({ scenario, seed })));
}

/**
 * Every golden seed of the runnable scenarios: `regression` compares each with the month kept in
 * fixtures/golden, `refresh-golden` writes it there when the run passes.
 */
function goldenCommand(
  io: ScenarioIo,
  scenarios: readonly Scenario[],
  { name, description, write }: { name: string; description: string; write: boolean },
): Command {
  return command({
    name,
    description,
    args: { scenario: { type: "string", description: "only this scenario" } },
    run: async ({ flags }) =>
      runMany(io, goldenRuns(scenarios, await builtCapabilities(), flags.scenario), write),
  });
}

/** Each (scenario, seed) once, in the order first asked. */
function distinctRuns(runs: readonly { scenario: Scenario; seed: number }[]) {
  const seen = new Set<string>();
  return runs.filter(({ scenario, seed }) => {
    const key = `${scenario.name} ${seed}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

/**
 * `bun scenario all --seeds 1-5`: every runnable scenario for each seed. With `--golden-seeds` a
 * scenario that keeps golden months runs those seeds instead, so one pass is the golden-month
 * regression and every other scenario once, no month twice (what CI runs).
 */
function allCommand(io: ScenarioIo, scenarios: readonly Scenario[]): Command {
  return command({
    name: "all",
    description: "run every scenario whose programs are built, for each seed",
    args: {
      seeds: { type: "string", default: "1", description: "seeds: a comma list or a range, 1,4 or 1-5" },
      "golden-seeds": {
        type: "boolean",
        default: false,
        description:
          "a scenario that keeps golden months runs its golden seeds instead (the regression and every other scenario in one pass)",
      },
    },
    parse: (flags) => {
      const problems = new Problems();
      const seeds = problems.attempt("--seeds", () => parseSeeds(flags.seeds));
      problems.throwIfAny();
      return { seeds: seeds as number[], goldenSeeds: flags["golden-seeds"] };
    },
    run: async ({ options }) => {
      const built = await builtCapabilities();
      const runnable = scenarios.filter((s) => missingFor(s.needs, built) === null);
      const seedsOf = (s: Scenario) =>
        options.goldenSeeds && s.goldenSeeds.length > 0 ? s.goldenSeeds : options.seeds;
      return runMany(
        io,
        distinctRuns(runnable.flatMap((scenario) => seedsOf(scenario).map((seed) => ({ scenario, seed })))),
        false,
      );
    },
  });
}

/** `1,4`, `1-5` or both: the seeds in the order given, each once; a RangeError completes "--seeds ...". */
export function parseSeeds(text: string): number[] {
  const seeds: number[] = [];
  for (const part of text.split(",")) {
    const range = /^(\d+)-(\d+)$/.exec(part.trim());
    const [from, to] = range === null ? [part.trim(), part.trim()] : [range[1] ?? "", range[2] ?? ""];
    const a = parseInteger(from, { min: 0 });
    const b = parseInteger(to, { min: 0 });
    if (b < a) throw new RangeError(`has a range that runs backwards: ${part}`);
    for (let seed = a; seed <= b; seed++) if (!seeds.includes(seed)) seeds.push(seed);
  }
  return seeds;
}

/** `bun scenario explain --out DIR --resource ID`: why one resource of a kept month bills what it does. */
function explainCommand(io: ScenarioIo): Command {
  return command({
    name: "explain",
    description:
      "show one resource of a month kept with --out: its events, the engine's intervals beside the oracle's, its rated lines beside the oracle's",
    args: {
      out: { type: "string", required: true, description: "the directory a scenario run kept (--out)" },
      resource: { type: "string", required: true, description: "the resource id, or <type>/<id>" },
    },
    run: ({ flags }) => {
      for (const line of explainResource(resolve(flags.out), flags.resource, pricingModelPath))
        io.stdout.write(`${line}\n`);
    },
  });
}

/**
 * Every scenario command but `up`: `list`, `all`, `regression`, `refresh-golden`, and one per scenario
 * of `scenarios` (declared in `scenarios/`, handed in by `cmd/scenario.ts`).
 */
export function scenarioCommands(io: ScenarioIo, scenarios: readonly Scenario[]): Record<string, Command> {
  const commands: Record<string, Command> = {
    list: listCommand(io, scenarios),
    explain: explainCommand(io),
    all: allCommand(io, scenarios),
    regression: goldenCommand(io, scenarios, {
      name: "regression",
      description:
        "the golden-month regression: run every golden seed and compare its totals with fixtures/golden",
      write: false,
    }),
    "refresh-golden": goldenCommand(io, scenarios, {
      name: "refresh-golden",
      description:
        "run every golden seed and write its totals to fixtures/golden when the run passes (review the diff before committing)",
      write: true,
    }),
  };
  for (const s of scenarios) commands[s.name] = scenarioCommand(io, s);
  return commands;
}
