import { command } from "../lib/cli/command.ts";
import { runCli } from "../lib/cli/run-cli.ts";
import { NotBuiltError } from "../lib/cli/usage-error.ts";

await runCli(
  command({
    name: "collector",
    description: "the collector: RabbitMQ oslo notifications to events through a durable outbox",
    run: () => {
      throw new NotBuiltError("collector is not built yet");
    },
  }),
);
