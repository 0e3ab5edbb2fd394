/**
 * What `promtool check metrics` (Debian's prometheus package, installed by scripts/setup.sh) says of an
 * exposition: the empty string when it passes. Every server's `/metrics` is linted with it in a test,
 * so a collector that names a gauge like a counter is caught before a Prometheus scrape is.
 */
export function promtoolLint(exposition: string): string {
  const promtool = Bun.which("promtool");
  if (promtool === null) {
    throw new Error("promtool is missing: install Debian's prometheus package (scripts/setup.sh does)");
  }
  const check = Bun.spawnSync([promtool, "check", "metrics"], {
    stdin: new TextEncoder().encode(exposition),
  });
  const said = `${check.stdout.toString()}${check.stderr.toString()}`;
  return check.exitCode === 0 ? said : said || `promtool exited ${check.exitCode}`;
}
