// Preloaded by `bun test` (bunfig.toml). A hook in a preload file is global: this one runs once,
// after the last test file, and stops the services the run started on demand (harness/test-services.ts).
// An interrupted run is cleaned up by the reaper each harness process starts (harness/process/reaper.ts).
import { afterAll } from "bun:test";
import { makeTempDir } from "./process/temp-dir.ts";
import { stopSharedServices } from "./test-services.ts";

// Every temp dir a test makes with os.tmpdir() lands inside the harness root, so the reaper removes it
// even when a hook times out or the run is killed before the test's own cleanup (decision 541).
const scratch = makeTempDir("tmp");
process.env.TMPDIR = scratch.path;

afterAll(async () => {
  await stopSharedServices();
  scratch.remove();
});
