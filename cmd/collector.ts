import pino from "pino";
import { Collector, collectorService } from "../lib/billing/collector/collector.ts";
import {
  checkCollectorSettings,
  collectorSettings,
  deliverySettings,
} from "../lib/billing/collector/collector-settings.ts";
import { dumpConsumer } from "../lib/billing/collector/dump.ts";
import { command } from "../lib/foundation/cli/command.ts";
import { runCli } from "../lib/foundation/cli/run-cli.ts";
import { serve } from "../lib/foundation/http/serve.ts";
import { createLogger } from "../lib/foundation/log/logger.ts";
import { exitOnFailure, exitOnSignal } from "../lib/foundation/process/shutdown.ts";

// Settings come from the environment (docs/collector.md); the one flag is --dump.
await runCli(
  command({
    name: "collector",
    description:
      "the collector: RabbitMQ oslo notifications to events through a durable outbox, posted to the Reporting API",
    args: {
      dump: {
        type: "boolean",
        default: false,
        description: "print the notifications the broker delivers as JSON lines and do nothing else",
      },
    },
    settings: collectorSettings,
    checkSettings: checkCollectorSettings,
    run: ({ flags, config }) => {
      if (flags.dump) {
        // stdout carries the dump and nothing else: the log goes to stderr.
        const logger = createLogger({
          service: collectorService,
          level: config.logLevel,
          destination: pino.destination({ dest: 2, sync: true }),
        });
        const consumer = dumpConsumer({
          url: config.amqpUrl.reveal(),
          exchanges: config.exchanges,
          topics: config.topics,
          write: (line) => process.stdout.write(line),
          log: logger,
        });
        exitOnSignal({ logger, stop: () => consumer.stop() });
        consumer.start();
        return;
      }
      const logger = createLogger({ service: collectorService, level: config.logLevel });
      try {
        const collector = new Collector(config, deliverySettings(config), logger);
        serve(collector.app, {
          hostname: "0.0.0.0",
          port: config.httpPort,
          logger,
          close: () => collector.stop(),
        });
        collector.start();
      } catch (error) {
        exitOnFailure(logger, "the collector cannot start")(error);
      }
    },
  }),
);
