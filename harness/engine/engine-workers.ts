import { readFileSync } from "node:fs";
import { treeOf } from "../process/process-table.ts";

/**
 * The live worker processes (`engine shard`, decision 470) under an engine started with `--workers N`:
 * what a test or a scenario kills to see the run fail as a whole.
 */
export function engineWorkerPids(enginePid: number): number[] {
  return treeOf(enginePid).filter((pid) => {
    try {
      return readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0").includes("shard");
    } catch {
      return false;
    }
  });
}
