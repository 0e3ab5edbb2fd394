import { command } from "../../../foundation/cli/command.ts";
import { issueApiToken } from "../../reporting/auth/credential-store.ts";
import { roles } from "../../reporting/auth/roles.ts";
import { actor, adminSettings, explained, jsonLine, withDb } from "./admin-support.ts";

/** `reporting-admin token issue`: an API token, its secret shown once. */
export const tokenIssueCommand = command({
  name: "issue",
  description: "issue an API token; its secret is shown once",
  args: {
    role: {
      type: "string",
      valueHint: "role",
      required: true,
      description: `one of ${roles.join(", ")} (lowest first)`,
    },
    projects: {
      type: "string",
      valueHint: "ids",
      description: "comma-separated project registry ids (the token's scope)",
    },
    label: { type: "string", valueHint: "text", description: "a note saying who holds it" },
  },
  settings: adminSettings,
  run: ({ flags, config, io }) =>
    explained(async () => {
      const projectIds = (flags.projects ?? "")
        .split(",")
        .map((p) => p.trim())
        .filter((p) => p !== "");
      const issued = await withDb(config.dbUrl.reveal(), (db) =>
        issueApiToken(db, { role: flags.role, projectIds, label: flags.label ?? "", actor }),
      );
      io.stdout(jsonLine(issued));
    }),
});
