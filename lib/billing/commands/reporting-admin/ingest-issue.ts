import { command } from "../../../foundation/cli/command.ts";
import { issueIngestCredential } from "../../reporting/auth/credential-store.ts";
import { actor, adminSettings, explained, jsonLine, withDb } from "./admin-support.ts";

/** `reporting-admin ingest issue`: the ingest credential of one (platform, cloud), its secret shown once. */
export const ingestIssueCommand = command({
  name: "issue",
  description: "issue an ingest credential; its secret is shown once",
  args: {
    platform: {
      type: "string",
      valueHint: "name",
      required: true,
      description: "platform the credential reports for",
    },
    cloud: {
      type: "string",
      valueHint: "name",
      required: true,
      description: "cloud the credential reports for",
    },
    label: { type: "string", valueHint: "text", description: "a note saying who holds it" },
  },
  settings: adminSettings,
  run: ({ flags, config, io }) =>
    explained(async () => {
      const issued = await withDb(config.dbUrl.reveal(), (db) =>
        issueIngestCredential(db, {
          platform: flags.platform,
          cloud: flags.cloud,
          label: flags.label ?? "",
          actor,
        }),
      );
      io.stdout(jsonLine(issued));
    }),
});
