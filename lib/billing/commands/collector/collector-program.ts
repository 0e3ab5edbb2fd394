import { type Command, command } from "../../../foundation/cli/command.ts";
import { exitCodes } from "../../../foundation/cli/exit-codes.ts";
import { serve } from "../../../foundation/http/serve.ts";
import { createLogger } from "../../../foundation/log/logger.ts";
import { exitOnFailure, exitOnSignal } from "../../../foundation/process/shutdown.ts";
import { Collector, collectorService } from "../../collector/collector.ts";
import {
  checkCollectorSettings,
  collectorSettings,
  deliverySettings,
} from "../../collector/collector-settings.ts";
import { dumpConsumer } from "../../collector/dump.ts";

/**
 * The collector's one command (decision 45): settings come from the environment (docs/collector.md);
 * the one flag is --dump.
 */
export function collectorProgram(): Command {
  return command({
    // the collector exits 1 on any failure other than a refusal (docs/collector.md)
    failureExit: exitCodes.fault,
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
    run: ({ flags, config, io }) => {
      if (flags.dump) {
        // stdout carries the dump and nothing else: the log goes to stderr.
        const logger = createLogger({
          service: collectorService,
          level: config.logLevel,
          destination: { write: (line: string) => io.stderr(line) },
        });
        const consumer = dumpConsumer({
          url: config.amqpUrl.reveal(),
          exchanges: config.exchanges,
          topics: config.topics,
          write: (line) => io.stdout(line),
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
  });
}
