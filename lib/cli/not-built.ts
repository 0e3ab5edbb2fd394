/**
 * Entry point of a program whose issue has not landed yet: it says so and exits 2, so that no script
 * mistakes a placeholder for a working program.
 */
export function notBuilt(program: string): never {
  process.stderr.write(`${program} is not built yet\n`);
  process.exit(2);
}
