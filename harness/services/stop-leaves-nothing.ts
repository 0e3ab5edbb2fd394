import { expect } from "bun:test";
import { existsSync } from "node:fs";
import { isAlive } from "../process/process-table.ts";

/** A private service as its stop test sees it: its dir and its processes. */
interface StoppableService {
  readonly dir: string | undefined;
  processes(): number[];
  stop(): Promise<void>;
}

/**
 * Stops a private service and checks that it left nothing behind: none of the processes it had just
 * before (returned, for the caller's own count), and not its dir.
 */
export async function expectStopLeavesNothing(service: StoppableService): Promise<number[]> {
  const processes = service.processes();
  await service.stop();
  expect(processes.filter(isAlive)).toEqual([]);
  expect(service.dir !== undefined && existsSync(service.dir)).toBe(false);
  return processes;
}
