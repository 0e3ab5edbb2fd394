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
