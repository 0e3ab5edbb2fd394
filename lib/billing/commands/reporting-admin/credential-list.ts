import { type Command, command } from "../../../foundation/cli/command.ts";
import type { ReportingDb } from "../../reporting/database.ts";
import { adminSettings, explained, jsonLine, withDb } from "./admin-support.ts";

/** `reporting-admin token list`, `ingest list`: the credentials of one scheme, never their secrets. */
export function credentialListCommand(what: string, read: (db: ReportingDb) => Promise<unknown[]>): Command {
  return command({
    name: "list",
    description: `list ${what} (never their secrets)`,
    settings: adminSettings,
    run: ({ config, io }) =>
      explained(async () => {
        for (const row of await withDb(config.dbUrl.reveal(), read)) io.stdout(jsonLine(row));
      }),
  });
}
