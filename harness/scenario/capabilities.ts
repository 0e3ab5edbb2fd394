import { runProgram } from "../process/run-program.ts";
import type { Capability } from "./scenario.ts";

/**
 * What is built beyond the file path, asked of the programs themselves so that a scenario joins as soon
 * as its program lands: `correct` when `engine --help` lists it; `broker` when the collector runs (a
 * program not built yet exits 2 whatever it is given; the simulator's broker mode landed with it);
 * `registry` when `simulator run --help` offers `--register-projects` and `engine --help` lists
 * `kickbacks` (the registry routes and the engine's adjustments came before both); `reconcile` when
 * `reporting-admin --help` lists `sync` (the route, the adapter and the simulator's load balancer
 * members landed with it).
 */
export async function builtCapabilities(): Promise<Set<Capability>> {
  const built = new Set<Capability>();
  const [engine, collector, admin, simulatorRun] = await Promise.all([
    runProgram("cmd/engine.ts", ["--help"]),
    runProgram("cmd/collector.ts", []),
    runProgram("cmd/reporting-admin.ts", ["--help"]),
    runProgram("cmd/simulator.ts", ["run", "--help"]),
  ]);
  if (/^\s+correct\s/m.test(engine.stdout)) built.add("correct");
  if (collector.code !== 2) built.add("broker");
  if (/^\s+sync\s/m.test(admin.stdout)) built.add("reconcile");
  if (/--register-projects\s/.test(simulatorRun.stdout) && /^\s+kickbacks\s/m.test(engine.stdout))
    built.add("registry");
  return built;
}

const described: Record<Capability, string> = {
  correct: "engine correct",
  broker: "the simulator's broker mode and the collector",
  registry: "the project registry and simulator run --register-projects",
  reconcile: "reconciliation",
};

/** What a scenario waits for, in words, or null when it can run. */
export function missingFor(needs: readonly Capability[], built: ReadonlySet<Capability>): string | null {
  const missing = needs.filter((n) => !built.has(n));
  return missing.length === 0 ? null : missing.map((n) => described[n]).join(", ");
}
