import type { CliIo } from "../../../lib/foundation/cli/cli-io.ts";
import { exitCodes } from "../../../lib/foundation/cli/exit-codes.ts";
import { parsePeriod } from "../../../lib/foundation/time/period.ts";
import { makeTempDir } from "../../process/temp-dir.ts";
import { builtCapabilities } from "../../scenario/capabilities.ts";
import { runScenario } from "../../scenario/run-scenario.ts";
import type { Scenario } from "../../scenario/scenario.ts";
import { startServices } from "../../services/services.ts";
import { defaultPeriod, defaultTenants } from "./run-flags.ts";
import { defaultVia, progressOf } from "./scenario-run.ts";

/** One month of a batch: which scenario, which seed. */
export interface ScenarioSeed {
  scenario: Scenario;
  seed: number;
}

/** Each (scenario, seed) once, in the order first asked. */
export function distinctRuns(runs: readonly ScenarioSeed[]): ScenarioSeed[] {
  const seen = new Set<string>();
  return runs.filter(({ scenario, seed }) => {
    const key = `${scenario.name} ${seed}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

/** Runs several scenario months one after the other; each ends with its PASS or FAIL line, then a tally. */
export async function runMany(
  io: CliIo,
  runs: readonly ScenarioSeed[],
  writeGolden: boolean,
): Promise<never> {
  const capabilities = await builtCapabilities();
  const via = defaultVia(capabilities);
  const results: string[] = [];
  io.onInterrupt(() => io.exit(exitCodes.interrupted));
  // PostgreSQL and RabbitMQ start once for all the runs, each run in a database and a vhost of its own
  // (the harness's SVC_TEST_* overrides); VictoriaMetrics, quick to start, stays private to a run so
  // that one month's counters never meet another's.
  const begin = performance.now();
  const shared = await startServices({ only: via === "broker" ? ["postgres", "rabbitmq"] : ["postgres"] });
  io.stdout(
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
          progress: progressOf(io),
          capabilities,
          via,
          writeGolden,
          env,
        });
        results.push(`${result.passed ? "passed" : "FAILED"} ${scenario.name} --seed ${seed}`);
      } finally {
        temp.remove();
      }
      io.stdout("\n");
    }
  } finally {
    await shared.stop();
  }
  const failed = results.filter((r) => r.startsWith("FAILED")).length;
  for (const line of results) io.stdout(`${line}\n`);
  io.stdout(`${results.length} scenario runs: ${results.length - failed} passed, ${failed} failed\n`);
  return io.exit(failed === 0 ? exitCodes.ok : exitCodes.differs);
}
