import { adminProgram } from "../lib/billing/commands/reporting-admin/admin-program.ts";
import { runCli } from "../lib/foundation/cli/run-cli.ts";

await runCli(adminProgram());
