import { readFile } from "node:fs/promises";
import { type Command, command, commandGroup } from "../../foundation/cli/command.ts";
import { Problems, UsageError } from "../../foundation/cli/usage-error.ts";
import { describeDatabaseFailure } from "../../foundation/postgres/database-failure.ts";
import { type Period, parsePeriod } from "../../foundation/time/period.ts";
import { CounterSourcesError, readCounterSources } from "../metering/counter-sources.ts";
import { victoriaMetricsCounterStore } from "../metering/counter-store.ts";
import { PricingModelError, readPricingModel } from "../pricing/pricing-model.ts";
import { correctionReport, correctPeriod } from "./correct-period.ts";
import { detectLate } from "./detect-late.ts";
import { type EngineDatabase, migrateEngine, openEngineDatabase } from "./engine-database.ts";
import {
  checkMeteringSettings,
  correctingSettings,
  engineDbSettings,
  meteringSettings,
  readingSettings,
} from "./engine-settings.ts";
import { type ExportFormat, exportRun } from "./export-run.ts";
import { finalizePeriod } from "./finalize-period.ts";
import { kickbackReport } from "./kickback-report.ts";
import { listPeriods } from "./list-periods.ts";
import type { CounterSetup } from "./rate-month.ts";
import { openReportingSource } from "./reporting-source.ts";
import { defaultRun, requireRun } from "./run-lookup.ts";
import { runPeriod, runReport } from "./run-period.ts";

/** Where a command writes: the entry script passes stdout, tests collect the lines. */
export interface EngineOutput {
  print(line: string): void;
}

const periodFlag = {
  period: { type: "string", required: true, description: "the month, YYYY-MM (UTC)" },
} as const;

function readPeriod(flags: { period: string }): { period: Period } {
  const problems = new Problems();
  const period = problems.attempt("--period:", () => parsePeriod(flags.period));
  problems.throwIfAny();
  return { period: period as Period };
}

/**
 * The work of a command, with what went wrong said in one line: a refusal stays a UsageError (a file
 * of ours that does not read is one too, one line per problem), and any other failure is described
 * without its URL or a secret (`describeDatabaseFailure`).
 */
async function explained<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof UsageError) throw error;
    if (error instanceof PricingModelError || error instanceof CounterSourcesError)
      throw new UsageError(error.message, { cause: error });
    throw new Error(describeDatabaseFailure(error), { cause: error });
  }
}

async function withEngine<T>(url: string, work: (engine: EngineDatabase) => Promise<T>): Promise<T> {
  const engine = openEngineDatabase(url);
  try {
    return await work(engine);
  } finally {
    await engine.close();
  }
}

/** The counter sources and their store, when the environment names them. */
async function counterSetup(config: {
  counterSources: string | undefined;
  vmUrl: URL | undefined;
}): Promise<CounterSetup | null> {
  if (config.counterSources === undefined || config.vmUrl === undefined) return null;
  const sources = readCounterSources(await readText(config.counterSources, "the counter sources file"));
  return { sources, store: victoriaMetricsCounterStore(config.vmUrl.toString()) };
}

async function readText(file: string, what: string): Promise<string> {
  try {
    return await readFile(file, "utf8");
  } catch (cause) {
    throw new UsageError(
      `${what} ${JSON.stringify(file)} cannot be read (${(cause as NodeJS.ErrnoException).code ?? "unreadable"})`,
      { cause },
    );
  }
}

/**
 * The engine's commands (spec 2, Engine command line) on the one CLI convention (`lib/foundation/cli/command.ts`).
 * Each prints its lines through `out`; a refusal is a UsageError (exit 1, nothing stored changes) and a
 * database that cannot be reached is one line without its URL (exit 1).
 */
// size: split pending (issue 27, helper commands)
export function engineProgram(out: EngineOutput, now: () => Date = () => new Date()): Command {
  const print = (lines: readonly string[]) => {
    for (const line of lines) out.print(line);
  };

  const run = command({
    name: "run",
    description: "Meter, rate and state a month as a regular run",
    args: {
      period: { type: "string", required: true, description: "the month, YYYY-MM (UTC); it must have ended" },
      pricing: { type: "string", description: "pricing model file (default: SVC_ENGINE_PRICING_MODEL)" },
    },
    settings: meteringSettings,
    checkSettings: checkMeteringSettings,
    parse: readPeriod,
    run: ({ flags, options, config }) =>
      explained(async () => {
        const modelPath = flags.pricing ?? config.pricingModel;
        if (modelPath === undefined) {
          throw new UsageError("name the pricing model: --pricing <file> or SVC_ENGINE_PRICING_MODEL");
        }
        const model = readPricingModel(await readText(modelPath, "the pricing model"));
        const counters = await counterSetup(config);
        const reporting = openReportingSource(config.reportingDbUrl.reveal());
        try {
          await withEngine(config.dbUrl.reveal(), async (engine) => {
            const result = await runPeriod(
              {
                engine,
                reporting,
                counters,
                statements: { relationTypes: config.relationTypes, depth: config.depth },
              },
              options.period,
              model,
              now(),
            );
            print(runReport(result, options.period, model));
          });
        } finally {
          await reporting.end({ timeout: 5 });
        }
      }),
  });

  const correct = command({
    name: "correct",
    description:
      "Meter a finalized month again and store its deltas and credit notes as a correction (late events)",
    args: periodFlag,
    settings: correctingSettings,
    checkSettings: checkMeteringSettings,
    parse: readPeriod,
    run: ({ options, config }) =>
      explained(async () => {
        const counters = await counterSetup(config);
        const reporting = openReportingSource(config.reportingDbUrl.reveal());
        try {
          await withEngine(config.dbUrl.reveal(), async (engine) => {
            const result = await correctPeriod({ engine, reporting, counters }, options.period);
            print(correctionReport(result, options.period));
          });
        } finally {
          await reporting.end({ timeout: 5 });
        }
      }),
  });

  const finalize = command({
    name: "finalize",
    description: "Close a month on a completed run (the human gate)",
    args: {
      ...periodFlag,
      run: {
        type: "string",
        description:
          "the run to finalize (default: the latest completed regular run); a correction is named here",
      },
    },
    settings: engineDbSettings,
    parse: readPeriod,
    run: ({ flags, options, config }) =>
      explained(() =>
        withEngine(config.dbUrl.reveal(), async (engine) =>
          print(await finalizePeriod(engine.sql, options.period, flags.run)),
        ),
      ),
  });

  const periods = commandGroup({
    name: "periods",
    description: "Periods known to the engine",
    subCommands: {
      list: command({
        name: "list",
        description: "One line per period with a run; finalized ones name their run",
        settings: engineDbSettings,
        run: ({ config }) =>
          explained(() =>
            withEngine(config.dbUrl.reveal(), async (engine) => print(await listPeriods(engine.sql))),
          ),
      }),
    },
  });

  const exportCommand = command({
    name: "export",
    description: "Write a run's export directory",
    args: {
      run: { type: "string", required: true, description: "the run id" },
      format: {
        type: "enum",
        options: ["json", "csv"],
        required: true,
        description: "json (run.json, statements, kickbacks) or csv (rated.csv)",
      },
      out: {
        type: "string",
        required: true,
        description: "the directory to write into (created when missing)",
      },
    },
    settings: engineDbSettings,
    run: ({ flags, config }) =>
      explained(() =>
        withEngine(config.dbUrl.reveal(), async (engine) =>
          print(await exportRun(engine.sql, flags.run, flags.format as ExportFormat, flags.out)),
        ),
      ),
  });

  const kickbacks = command({
    name: "kickbacks",
    description: "The kickback report of a period's run, as JSON",
    args: {
      ...periodFlag,
      run: { type: "string", description: "the run (default: the finalized run, else the latest completed)" },
    },
    settings: engineDbSettings,
    parse: readPeriod,
    run: ({ flags, options, config }) =>
      explained(() =>
        withEngine(config.dbUrl.reveal(), async (engine) => {
          const p = options.period;
          const run =
            flags.run === undefined
              ? await defaultRun(engine.sql, p.name)
              : await requireRun(engine.sql, flags.run);
          if (run === null)
            throw new UsageError(`${p.name} has no completed run: run it first with run --period ${p.name}`);
          if (run.period !== p.name)
            throw new UsageError(`run ${run.id} is a run of ${run.period}, not of ${p.name}`);
          out.print(JSON.stringify(await kickbackReport(engine.sql, run), null, 2));
        }),
      ),
  });

  const detectLateCommand = command({
    name: "detect-late",
    description:
      "List the events received after the finalized run read the month (reads and changes nothing)",
    args: periodFlag,
    settings: readingSettings,
    parse: readPeriod,
    run: ({ options, config }) =>
      explained(async () => {
        const reporting = openReportingSource(config.reportingDbUrl.reveal());
        try {
          await withEngine(config.dbUrl.reveal(), async (engine) =>
            print(await detectLate(engine.sql, reporting, options.period)),
          );
        } finally {
          await reporting.end({ timeout: 5 });
        }
      }),
  });

  const migrate = command({
    name: "migrate",
    description: "Bring the engine schema up to date (safe to run twice at once)",
    settings: engineDbSettings,
    run: ({ config }) =>
      explained(async () => {
        const applied = await migrateEngine(config.dbUrl.reveal());
        out.print(`engine schema up to date (${applied} migrations applied)`);
      }),
  });

  return commandGroup({
    name: "engine",
    description: "The metering engine: runs, finalization and exports of billing months",
    subCommands: {
      run,
      correct,
      finalize,
      periods,
      export: exportCommand,
      kickbacks,
      "detect-late": detectLateCommand,
      migrate,
    },
  });
}
