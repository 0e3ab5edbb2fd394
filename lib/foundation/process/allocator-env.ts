import { selfCommand } from "./self-command.ts";

/**
 * The allocator setting the Reporting API and the collector run with (decision 277): Bun's allocator
 * (mimalloc) keeps the memory a batch freed for the next one instead of handing it back to the system.
 * Each ingest batch and each posted batch allocates buffers of about a megabyte; handed back and
 * touched again, they cost a page fault per 4 KiB on every batch, which on our VMs was up to half of
 * the API's CPU. The price is a resident size that stays near its peak. mimalloc reads the setting from
 * the environment at process start, so it is set where the process is started: the Containerfile's
 * targets, and the harness launchers through this function.
 */
export function serviceAllocatorEnv(): Record<string, string> {
  // A value in the caller's own environment wins, so a bench can measure Bun's default (100) too.
  return { MIMALLOC_PURGE_DELAY: process.env.MIMALLOC_PURGE_DELAY ?? "-1" };
}

/** Signals an operator or a supervisor sends the program: the copy with the setting gets them too. */
const relayed: NodeJS.Signals[] = ["SIGINT", "SIGTERM", "SIGHUP"];

/**
 * Makes sure this process runs with the allocator setting, however it was started (decision 436):
 * when its environment names none, the same program (a script under `bun` with Bun's own flags, or a
 * compiled executable) runs again as a child with it, this process relays signals to it and ends as
 * it ended, by the same exit status or signal; the call never returns there. Where a value is set,
 * even Bun's default, it returns at once and that value holds.
 */
export async function withAllocatorEnv(): Promise<void> {
  if (process.env.MIMALLOC_PURGE_DELAY !== undefined) return;
  const child = Bun.spawn([...selfCommand(), ...process.argv.slice(2)], {
    env: { ...process.env, ...serviceAllocatorEnv() },
    stdio: ["inherit", "inherit", "inherit"],
  });
  const relay = (signal: NodeJS.Signals) => child.kill(signal);
  for (const signal of relayed) process.on(signal, relay);
  const code = await child.exited;
  for (const signal of relayed) process.off(signal, relay);
  if (child.signalCode !== null) process.kill(process.pid, child.signalCode);
  process.exit(code);
}
