/**
 * A program started as its own process, its stdout read until it prints `marker` (the line after which
 * it holds: `Press Ctrl-C ...`). Throws with what it said if it ends first.
 */
export async function startUntil(
  argv: readonly string[],
  marker: string,
  env: Record<string, string | undefined> = process.env,
): Promise<{ proc: Bun.Subprocess<"ignore", "pipe", "pipe">; said: string }> {
  const proc = Bun.spawn([...argv], { stdin: "ignore", stdout: "pipe", stderr: "pipe", env });
  const reader = proc.stdout.getReader();
  const decoder = new TextDecoder();
  let said = "";
  while (!said.includes(marker)) {
    const { value, done } = await reader.read();
    if (done)
      throw new Error(`${argv.join(" ")} ended early:\n${said}\n${await new Response(proc.stderr).text()}`);
    said += decoder.decode(value, { stream: true });
  }
  reader.releaseLock();
  return { proc, said };
}

/** The `export NAME=value` lines of a program's output, by name. */
export function exportLines(text: string): Record<string, string> {
  return Object.fromEntries(
    [...text.matchAll(/^export ([A-Z_]+)=(\S*)$/gm)].map((m) => [m[1] ?? "", m[2] ?? ""]),
  );
}
