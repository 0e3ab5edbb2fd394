import { type OvnService, startOvn } from "./ovn.ts";
import { type PostgresService, startPostgres } from "./postgres.ts";
import { type RabbitmqService, startRabbitmq } from "./rabbitmq.ts";
import { startVictoriaMetrics, type VictoriaMetricsService } from "./victoria-metrics.ts";

export type ServiceName = "postgres" | "rabbitmq" | "ovn" | "victoriaMetrics";

export const allServices: readonly ServiceName[] = ["postgres", "rabbitmq", "ovn", "victoriaMetrics"];

interface ServiceMap {
  postgres: PostgresService;
  rabbitmq: RabbitmqService;
  ovn: OvnService;
  victoriaMetrics: VictoriaMetricsService;
}

interface StartOptions {
  /** Which services to start (default: all four). */
  only?: readonly ServiceName[];
  /** Chassis of the OVN sandbox (default 2). */
  chassis?: number;
  /** Where the SVC_TEST_* overrides are read (default: process.env). */
  env?: Record<string, string | undefined>;
}

/** A started set of services: each present when asked for, how long each took, one stop for all. */
export interface Services extends Partial<ServiceMap> {
  /** Milliseconds each service took to start (an external one: to connect, about 0). */
  readonly startMs: Partial<Record<ServiceName, number>>;
  /** Stops every service and removes every dir they made; safe to call twice. */
  stop(): Promise<void>;
}

/** Starts one service by name. */
export function startService<N extends ServiceName>(
  name: N,
  options: { chassis?: number; env?: Record<string, string | undefined> } = {},
): Promise<ServiceMap[N]> {
  const env = options.env ?? process.env;
  const starters: { [K in ServiceName]: () => Promise<ServiceMap[K]> } = {
    postgres: () => startPostgres(env),
    rabbitmq: () => startRabbitmq(env),
    ovn: () => startOvn({ chassis: options.chassis ?? 2, env }),
    victoriaMetrics: () => startVictoriaMetrics(env),
  };
  return starters[name]();
}

/**
 * Starts the chosen services in parallel. When one fails, the others are stopped and the failure
 * is thrown, so a failed start leaves nothing behind either.
 */
export async function startServices(options: StartOptions = {}): Promise<Services> {
  const names = options.only ?? allServices;
  const startMs: Partial<Record<ServiceName, number>> = {};
  const started: Partial<ServiceMap> = {};
  const stoppers: (() => Promise<void>)[] = [];
  const results = await Promise.allSettled(
    names.map(async (name) => {
      const begin = performance.now();
      const service = await startService(name, options);
      startMs[name] = Math.round(performance.now() - begin);
      stoppers.push(() => service.stop());
      Object.assign(started, { [name]: service });
    }),
  );
  let stopped: Promise<void> | undefined;
  const stop = (): Promise<void> => {
    stopped ??= Promise.allSettled(stoppers.map((stopOne) => stopOne())).then((outcomes) => {
      const failures = outcomes.filter((outcome) => outcome.status === "rejected");
      if (failures.length > 0)
        throw new AggregateError(
          failures.map((failure) => failure.reason),
          "stop failed",
        );
    });
    return stopped;
  };
  const failures = results.filter((result) => result.status === "rejected");
  if (failures.length > 0) {
    await stop().catch(() => {});
    const reasons = failures.map((failure) => failure.reason);
    throw reasons.length === 1 ? reasons[0] : new AggregateError(reasons, "services failed to start");
  }
  return { ...started, startMs, stop };
}
