import { expect, test } from "bun:test";
import { runProgram } from "../../harness/process/run-program.ts";

async function run(env: Record<string, string>) {
  const { stdout, code } = await runProgram("fixtures/config/print-config.ts", [], env);
  return {
    code,
    lines: stdout
      .split("\n")
      .filter(Boolean)
      .map((l) => JSON.parse(l) as Record<string, unknown>),
  };
}

test("a refused configuration exits 1 with one JSON line per refused variable and no secret", async () => {
  const { code, lines } = await run({ FIXTURE_PORT: "http" });
  expect(code).toBe(1);
  expect(lines.map((l) => [l.service, l.level, l.variable])).toEqual([
    ["svc-fixture", "error", "FIXTURE_PORT"],
    ["svc-fixture", "error", "FIXTURE_TOKEN"],
  ]);
  expect(String(lines[1]?.msg)).toBe("configuration refused: FIXTURE_TOKEN is required");
});

test("an accepted configuration runs on, secrets redacted when printed", async () => {
  const { code, lines } = await run({ FIXTURE_TOKEN: "t0ps3cret" });
  expect(code).toBe(0);
  expect(lines).toEqual([{ port: 8080, token: "[redacted]" }]);
});
