/**
 * Tags of test files too slow for CI's pass (decision 38): `SVC_TEST_SKIP=cluster` (a comma-separated
 * list) skips every file tagged `cluster`, counted by bun as skipped; `./svc test` without it runs all.
 */
export function skipsTag(tag: string, env: Record<string, string | undefined> = process.env): boolean {
  return (env.SVC_TEST_SKIP ?? "")
    .split(",")
    .map((t) => t.trim())
    .includes(tag);
}
