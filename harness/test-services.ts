import { startService } from "./services/services.ts";

// One instance of each service per `bun test` run, started by the first test that asks for it and
// stopped by the preload (harness/test-setup.ts) when the run ends. Tests isolate themselves inside
// it: a database, a vhost, a logical switch or a metric name of their own.
const stoppers: (() => Promise<void>)[] = [];

// bun test SIGTERMs every process a file spawned when one of its tests times out (oven-sh/bun#38774),
// shared daemons included when that file started them: a service found dead is started again, so one
// slow test fails its own file, not every file after it.
export function shared<T extends { stop(): Promise<void> }>(
  start: () => Promise<T>,
  alive: (service: T) => boolean,
): () => Promise<T> {
  let service: Promise<T> | undefined;
  let current: T | undefined;
  const begin = (): Promise<T> => {
    const starting = start().then((started) => {
      current = started;
      return started;
    });
    service = starting;
    return starting;
  };
  stoppers.push(async () => {
    const running = await service?.catch(() => undefined);
    service = undefined;
    await running?.stop();
  });
  return () => {
    if (service === undefined) return begin();
    if (current !== undefined && !alive(current)) {
      const dead = current;
      current = undefined;
      service = dead
        .stop()
        .catch(() => {})
        .then(begin);
    }
    return service;
  };
}

const hasProcesses = (service: { external: boolean; processes(): number[] }) =>
  service.external || service.processes().length > 0;

/** Lazy shared services: `const pg = await services.postgres()`. */
export const services = {
  postgres: shared(() => startService("postgres"), hasProcesses),
  rabbitmq: shared(() => startService("rabbitmq"), hasProcesses),
  ovn: shared(
    () => startService("ovn"),
    (ovn) => ovn.external || (ovn.nb.running && ovn.sb.running && ovn.northd.running),
  ),
  victoriaMetrics: shared(() => startService("victoriaMetrics"), hasProcesses),
};

/** Stops whatever the run started. */
export async function stopSharedServices(): Promise<void> {
  await Promise.all(stoppers.splice(0).map((stop) => stop()));
}
