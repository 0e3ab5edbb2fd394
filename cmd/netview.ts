import { runCli } from "../lib/foundation/cli/run-cli.ts";
import { netviewProgram } from "../lib/network/commands/netview/netview-program.ts";

await runCli(netviewProgram());
