import { type Command, commandGroup } from "../../../foundation/cli/command.ts";
import { listApiTokens, listIngestCredentials } from "../../reporting/auth/credential-store.ts";
import { credentialListCommand } from "./credential-list.ts";
import { credentialRevokeCommand } from "./credential-revoke.ts";
import { ingestIssueCommand } from "./ingest-issue.ts";
import { migrateCommand } from "./migrate.ts";
import { syncCommand } from "./sync.ts";
import { tokenIssueCommand } from "./token-issue.ts";

/**
 * The admin CLI's command tree, one file per command beside this one (decision 45). It works on the
 * database directly and needs only `SVC_REPORTING_DB_URL`. Output is one JSON document per line so
 * scripts can read it; an issued secret is printed once, in the issue command's output, and nowhere
 * else.
 */
export function adminProgram(): Command {
  return commandGroup({
    name: "reporting-admin",
    description: "administer the reporting database",
    subCommands: {
      migrate: migrateCommand,
      token: commandGroup({
        name: "token",
        description: "API tokens (scheme apiToken)",
        subCommands: {
          issue: tokenIssueCommand,
          list: credentialListCommand("API tokens", listApiTokens),
          revoke: credentialRevokeCommand("api", "an API token"),
        },
      }),
      ingest: commandGroup({
        name: "ingest",
        description: "ingest credentials (scheme ingestToken), one per (platform, cloud)",
        subCommands: {
          issue: ingestIssueCommand,
          list: credentialListCommand("ingest credentials", listIngestCredentials),
          revoke: credentialRevokeCommand("ingest", "an ingest credential"),
        },
      }),
      sync: syncCommand,
    },
  });
}
