import { mkdirSync } from "node:fs";
import type { CliIo } from "../../../lib/foundation/cli/cli-io.ts";
import { type Command, command } from "../../../lib/foundation/cli/command.ts";
import { exitCodes } from "../../../lib/foundation/cli/exit-codes.ts";
import { NotBuiltError, UsageError } from "../../../lib/foundation/cli/usage-error.ts";
import { heldOpen } from "../../../lib/foundation/process/held-open.ts";
import { chromiumPath } from "../../browser/headless-chromium.ts";
import { makeTempDir } from "../../process/temp-dir.ts";
import { builtCapabilities, missingFor } from "../../scenario/capabilities.ts";
import type { Via } from "../../scenario/month-delivery.ts";
import { runScenario, type ScenarioResult } from "../../scenario/run-scenario.ts";
import type { Capability, Scenario } from "../../scenario/scenario.ts";
import type { ScenarioStack } from "../../scenario/scenario-stack.ts";
import { type StageProgress, stageProgress } from "../../scenario/stage-progress.ts";
import { parseRunFlags, type RunChoice, runArgs } from "./run-flags.ts";

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
    // On the broker path: the run's vhost, which the collector consumes and the simulator publishes on.
    ...(stack.broker === undefined
      ? []
      : [
          `export SVC_OSC_AMQP_URL=${stack.broker.amqpUrl}`,
          `export SVC_SIM_AMQP_URL=${stack.broker.amqpUrl}`,
        ]),
    "for example: bun run engine periods list",
    "",
    "Press Ctrl-C to stop and clean up.",
  ];
}

/** The broker and the collector once they are built: the path a deployment takes. */
export function defaultVia(built: ReadonlySet<Capability>): Via {
  return built.has("broker") ? "broker" : "file";
}

/** Where a scenario run's report lines go: the command's stdout, live on a terminal. */
export function progressOf(io: CliIo): StageProgress {
  return stageProgress({ isTTY: io.isTerminal, write: io.stdout });
}

/** Runs one scenario as the command line asked; its command exits 0 when it passed, 3 when not. */
async function runOne(io: CliIo, scenario: Scenario, choice: RunChoice): Promise<ScenarioResult> {
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
  const progress = progressOf(io);
  io.onInterrupt(() => {
    progress.print("interrupted: stopping the stack");
    // The harness's exit handler and reaper stop every daemon it started and remove its dirs.
    io.exit(exitCodes.interrupted);
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
              heldOpen(
                new Promise<void>((release) => {
                  for (const line of keepLines(stack, dir)) progress.print(line);
                  io.onInterrupt(() => {
                    progress.print("stopping…");
                    release();
                  });
                }),
              ),
          }
        : {}),
    });
  } finally {
    temp?.remove();
  }
}

/** `bun scenario <name>`: one scenario month end to end. */
export function scenarioRunCommand(scenario: Scenario): Command {
  return command({
    name: scenario.name,
    description: scenario.summary,
    args: runArgs,
    parse: (flags) => parseRunFlags(flags, new Date()),
    run: async ({ options, io }) => {
      const result = await runOne(io, scenario, options);
      io.exit(result.passed ? exitCodes.ok : exitCodes.differs);
    },
  });
}
