/**
 * The command line that starts this same program again, without its arguments: a script under `bun`
 * with Bun's own flags, or a compiled executable (whose argv[1] is its embedded entry point, not an
 * argument of ours). The allocator's restart (decision 436) and the engine's workers (decision 470)
 * start their copy with it.
 */
export function selfCommand(): string[] {
  return Bun.main.startsWith("/$bunfs/")
    ? [process.execPath]
    : [process.execPath, ...process.execArgv, ...process.argv.slice(1, 2)];
}
