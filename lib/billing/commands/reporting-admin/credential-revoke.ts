import { type Command, command } from "../../../foundation/cli/command.ts";
import { revokeCredential } from "../../reporting/auth/credential-store.ts";
import { actor, adminSettings, explained, jsonLine, withDb } from "./admin-support.ts";

/** `reporting-admin token revoke ID`, `ingest revoke ID`. */
export function credentialRevokeCommand(scheme: "api" | "ingest", what: string): Command {
  return command({
    name: "revoke",
    description: `revoke ${what} by id`,
    args: { id: { type: "positional", required: true, description: `${what} id` } },
    settings: adminSettings,
    run: ({ flags, config, io }) =>
      explained(async () => {
        await withDb(config.dbUrl.reveal(), (db) => revokeCredential(db, scheme, flags.id, actor));
        io.stdout(jsonLine({ revoked: flags.id }));
      }),
  });
}
