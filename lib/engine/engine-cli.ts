import { readFile } from "node:fs/promises";
import { defineCommand } from "citty";
import type { Env } from "../config/fields.ts";
import { CounterSourcesError, readCounterSources } from "../metering/counter-sources.ts";
import { victoriaMetricsCounterStore } from "../metering/counter-store.ts";
import { PricingModelError, readPricingModel } from "../pricing/pricing-model.ts";
import { describeFailure } from "../reporting/admin-cli.ts";
import { type Period, parsePeriod } from "../time/period.ts";
import { detectLate } from "./detect-late.ts";
import { type EngineDatabase, migrateEngine, openEngineDatabase } from "./engine-database.ts";
import { EngineRefusal } from "./engine-refusal.ts";
import { readEngineDbSettings, readMeteringSettings } from "./engine-settings.ts";
import { type ExportFormat, exportRun } from "./export-run.ts";
import { finalizePeriod } from "./finalize-period.ts";
import { kickbackReport } from "./kickback-report.ts";
import { listPeriods } from "./list-periods.ts";
import { openReportingSource } from "./reporting-source.ts";
import { defaultRun, requireRun } from "./run-lookup.ts";
import { runPeriod, runReport } from "./run-period.ts";

/** Where a command writes: the entry script passes stdout, tests collect the lines. */
export interface EngineOutput {
  print(line: string): void;
}

function period(value: string | undefined): Period {
  if (value === undefined) throw new EngineRefusal("--period is required (YYYY-MM)");
  try {
    return parsePeriod(value);
  } catch (cause) {
    throw new EngineRefusal((cause as Error).message, { cause });
  }
}

async function withEngine<T>(env: Env, work: (engine: EngineDatabase) => Promise<T>): Promise<T> {
  const engine = openEngineDatabase(readEngineDbSettings(env).dbUrl.reveal());
  try {
    return await work(engine);
  } finally {
    await engine.close();
  }
}

async function readText(file: string, what: string): Promise<string> {
  try {
    return await readFile(file, "utf8");
  } catch (cause) {
    throw new EngineRefusal(
      `${what} ${JSON.stringify(file)} cannot be read (${(cause as NodeJS.ErrnoException).code ?? "unreadable"})`,
      { cause },
    );
  }
}

/**
 * The engine's commands (spec 2, Engine command line). Each prints its lines through `out`; a refusal
 * (EngineRefusal, a refused configuration, a model or sources file that does not read) and an
 * unreachable database end in one line from `describeEngineFailure` and exit 1.
 */
export function engineCommand(env: Env, out: EngineOutput, now: () => Date = () => new Date()) {
  const print = (lines: readonly string[]) => {
    for (const line of lines) out.print(line);
  };

  const run = defineCommand({
    meta: { name: "run", description: "Meter, rate and state a month as a regular run" },
    args: {
      period: { type: "string", description: "the month, YYYY-MM (UTC); it must have ended" },
      pricing: { type: "string", description: "pricing model file (default: SVC_ENGINE_PRICING_MODEL)" },
    },
    async run({ args }) {
      const p = period(args.period);
      const settings = readMeteringSettings(env);
      const modelPath = args.pricing ?? settings.pricingModel;
      if (modelPath === undefined) {
        throw new EngineRefusal("name the pricing model: --pricing <file> or SVC_ENGINE_PRICING_MODEL");
      }
      const model = readPricingModel(await readText(modelPath, "the pricing model"));
      const sources =
        settings.counterSources === undefined
          ? null
          : readCounterSources(await readText(settings.counterSources, "the counter sources file"));
      const reporting = openReportingSource(settings.reportingDbUrl.reveal());
      try {
        await withEngine(env, async (engine) => {
          const result = await runPeriod(
            {
              engine,
              reporting,
              counters:
                sources === null || settings.vmUrl === undefined
                  ? null
                  : { sources, store: victoriaMetricsCounterStore(settings.vmUrl.toString()) },
              statements: { relationTypes: settings.relationTypes, depth: settings.depth },
            },
            p,
            model,
            now(),
          );
          print(runReport(result, p, model));
        });
      } finally {
        await reporting.end({ timeout: 5 });
      }
    },
  });

  const finalize = defineCommand({
    meta: { name: "finalize", description: "Close a month on a completed run (the human gate)" },
    args: {
      period: { type: "string", description: "the month, YYYY-MM" },
      run: { type: "string", description: "the run to finalize (default: the latest completed regular run)" },
    },
    async run({ args }) {
      const p = period(args.period);
      await withEngine(env, async (engine) => print(await finalizePeriod(engine.sql, p, args.run)));
    },
  });

  const periods = defineCommand({
    meta: { name: "periods", description: "Periods known to the engine" },
    subCommands: {
      list: defineCommand({
        meta: { name: "list", description: "One line per period with a run; finalized ones name their run" },
        async run() {
          await withEngine(env, async (engine) => print(await listPeriods(engine.sql)));
        },
      }),
    },
  });

  const exportCommand = defineCommand({
    meta: { name: "export", description: "Write a run's export directory" },
    args: {
      run: { type: "string", description: "the run id" },
      format: { type: "string", description: "json (run.json, statements, kickbacks) or csv (rated.csv)" },
      out: { type: "string", description: "the directory to write into (created when missing)" },
    },
    async run({ args }) {
      if (args.run === undefined) throw new EngineRefusal("--run is required");
      if (args.format !== "json" && args.format !== "csv")
        throw new EngineRefusal("--format takes json or csv");
      if (args.out === undefined || args.out === "") throw new EngineRefusal("--out is required");
      const { run: id, out: dir } = args;
      const format: ExportFormat = args.format;
      await withEngine(env, async (engine) => print(await exportRun(engine.sql, id, format, dir)));
    },
  });

  const kickbacks = defineCommand({
    meta: { name: "kickbacks", description: "The kickback report of a period's run, as JSON" },
    args: {
      period: { type: "string", description: "the month, YYYY-MM" },
      run: { type: "string", description: "the run (default: the finalized run, else the latest completed)" },
    },
    async run({ args }) {
      const p = period(args.period);
      await withEngine(env, async (engine) => {
        let run =
          args.run === undefined
            ? await defaultRun(engine.sql, p.name)
            : await requireRun(engine.sql, args.run);
        if (run === null)
          throw new EngineRefusal(`${p.name} has no completed run: run it first with run --period ${p.name}`);
        if (run.period !== p.name)
          throw new EngineRefusal(`run ${run.id} is a run of ${run.period}, not of ${p.name}`);
        run = run as NonNullable<typeof run>;
        out.print(JSON.stringify(await kickbackReport(engine.sql, run), null, 2));
      });
    },
  });

  const detectLateCommand = defineCommand({
    meta: {
      name: "detect-late",
      description:
        "List the events received after the finalized run read the month (reads and changes nothing)",
    },
    args: { period: { type: "string", description: "the month, YYYY-MM" } },
    async run({ args }) {
      const p = period(args.period);
      const settings = readMeteringSettings(env);
      const reporting = openReportingSource(settings.reportingDbUrl.reveal());
      try {
        await withEngine(env, async (engine) => print(await detectLate(engine.sql, reporting, p)));
      } finally {
        await reporting.end({ timeout: 5 });
      }
    },
  });

  const migrate = defineCommand({
    meta: { name: "migrate", description: "Bring the engine schema up to date (safe to run twice at once)" },
    async run() {
      const applied = await migrateEngine(readEngineDbSettings(env).dbUrl.reveal());
      out.print(`engine schema up to date (${applied} migrations applied)`);
    },
  });

  return defineCommand({
    meta: {
      name: "engine",
      description: "The metering engine: runs, finalization and exports of billing months",
    },
    subCommands: {
      run,
      finalize,
      periods,
      export: exportCommand,
      kickbacks,
      "detect-late": detectLateCommand,
      migrate,
    },
  });
}

/** One line for a failed command; never a URL or a secret. */
export function describeEngineFailure(error: unknown): string {
  if (
    error instanceof EngineRefusal ||
    error instanceof PricingModelError ||
    error instanceof CounterSourcesError
  ) {
    return error.message;
  }
  return describeFailure(error);
}
