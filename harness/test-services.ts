import { startService } from "./services/services.ts";

// One instance of each service per `bun test` run, started by the first test that asks for it and
// stopped by the preload (harness/test-setup.ts) when the run ends. Tests isolate themselves inside
// it: a database, a vhost, a logical switch or a metric name of their own.
const stoppers: (() => Promise<void>)[] = [];

function shared<T extends { stop(): Promise<void> }>(start: () => Promise<T>): () => Promise<T> {
  let service: Promise<T> | undefined;
  return () => {
    if (service === undefined) {
      const starting = start();
      service = starting;
      stoppers.push(async () => {
        service = undefined;
        // A service that failed to start cleaned up after itself: nothing to stop.
        const running = await starting.catch(() => undefined);
        await running?.stop();
      });
    }
    return service;
  };
}

/** Lazy shared services: `const pg = await services.postgres()`. */
export const services = {
  postgres: shared(() => startService("postgres")),
  rabbitmq: shared(() => startService("rabbitmq")),
  ovn: shared(() => startService("ovn")),
  victoriaMetrics: shared(() => startService("victoriaMetrics")),
};

/** Stops whatever the run started. */
export async function stopSharedServices(): Promise<void> {
  await Promise.all(stoppers.splice(0).map((stop) => stop()));
}
