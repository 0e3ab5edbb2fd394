// Preloaded by `bun test` (bunfig.toml). A hook in a preload file is global: this one runs once,
// after the last test file, and stops the services the run started on demand (harness/test-services.ts).
// An interrupted run is cleaned up by the reaper each harness process starts (harness/process/reaper.ts).
import { afterAll } from "bun:test";
import { stopSharedServices } from "./test-services.ts";

afterAll(async () => {
  await stopSharedServices();
});
