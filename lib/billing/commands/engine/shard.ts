import { command } from "../../../foundation/cli/command.ts";
import { exitCodes } from "../../../foundation/cli/exit-codes.ts";
import { Problems } from "../../../foundation/cli/usage-error.ts";
import { whenParentGone } from "../../../foundation/process/parent-watch.ts";
import { parseInstant } from "../../../foundation/time/instant.ts";
import { checkMeteringSettings, correctingSettings } from "../../engine/engine-settings.ts";
import { meterShard } from "../../engine/shards/meter-shard.ts";
import { parseShard, type Shard } from "../../engine/shards/shard.ts";
import { counterSetup, explained, withEngine, withReporting } from "./command-support.ts";

function readShardFlags(flags: { shard: string; "read-at": string }): { shard: Shard; readAt: string } {
  const problems = new Problems();
  const shard = problems.attempt("", () => parseShard(flags.shard));
  const readAt = parseInstant(flags["read-at"]);
  if (readAt === null) problems.add(`--read-at: not an instant: ${JSON.stringify(flags["read-at"])}`);
  problems.throwIfAny();
  return { shard: shard as Shard, readAt: readAt as string };
}

/**
 * `engine shard`: one worker of a run spread over processes (decision 470). `run --workers N` and
 * `correct --workers N` start it, once per shard, with the run's id and the snapshot they hold; it is
 * not run by hand. It ends with the process that started it.
 */
export const shardCommand = command({
  name: "shard",
  description: "internal: one worker's shard of a run or correction started with --workers N (they start it)",
  args: {
    run: { type: "string", valueHint: "id", required: true, description: "the running run" },
    shard: { type: "string", valueHint: "k/N", required: true, description: "the shard, k of N" },
    snapshot: { type: "string", valueHint: "id", required: true, description: "the exported snapshot" },
    "read-at": {
      type: "string",
      valueHint: "instant",
      required: true,
      description: "the run's read instant",
    },
  },
  settings: correctingSettings,
  checkSettings: checkMeteringSettings,
  parse: readShardFlags,
  run: ({ flags, options, config }) => {
    // Left without its coordinator, a worker stops: nobody would finish or fail its run.
    whenParentGone(() => process.exit(exitCodes.failed));
    return explained(async () => {
      const counters = await counterSetup(config);
      await withReporting(config.reportingDbUrl.reveal(), (reporting) =>
        withEngine(config.dbUrl.reveal(), (engine) =>
          meterShard({ engine, reporting, counters }, flags.run, {
            id: flags.snapshot,
            readAt: options.readAt,
            shard: options.shard,
          }),
        ),
      );
    });
  },
});
