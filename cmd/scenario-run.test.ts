import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { chmodSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { isAlive, processesUnder } from "../harness/process/process-table.ts";
import { type ProgramRun, runProgram } from "../harness/process/run-program.ts";
import { scenarios } from "../scenarios/index.ts";

const scenario = (args: readonly string[], env: Record<string, string> = {}): Promise<ProgramRun> =>
  runProgram("cmd/scenario.ts", args, env);

let out: string;
let temp: string;
let golden: ProgramRun;

beforeAll(async () => {
  out = mkdtempSync(join(tmpdir(), "svc-scenario-test-"));
  // A temp dir of its own, so that what the run leaves there is seen apart from other runs on the
  // machine; short, as Chromium's socket path inside it must stay under 108 bytes.
  temp = mkdtempSync("/tmp/sc-");
  // The services run as their own users and must traverse them.
  chmodSync(out, 0o711);
  chmodSync(temp, 0o711);
  golden = await scenario(["golden", "--seed", "1", "--out", join(out, "golden")], { TMPDIR: temp });
}, 180_000);
afterAll(() => {
  rmSync(out, { recursive: true, force: true });
  rmSync(temp, { recursive: true, force: true });
});

describe("bun scenario golden --seed 1", () => {
  test("passes with exit 0, one line per stage with its time, every check passed", () => {
    expect(golden.code).toBe(0);
    const lines = golden.stdout.split("\n");
    expect(lines[0]).toBe(
      "scenario golden: seed 1, 2026-10, 10 tenants, no faults; published on RabbitMQ by the simulator, carried by the collector to the Reporting API",
    );
    for (const stage of ["stack", "publish", "collect", "counters", "meter", "finalize", "export", "compare"])
      expect(lines.some((l) => new RegExp(`^  ${stage} +.* \\(\\d+\\.\\d s\\)$`).test(l))).toBe(true);
    expect(golden.stdout).toMatch(
      /^ {2}collect +the collector consumed (\d+), skipped \d+, unparseable 0; its outbox drained into the Reporting API/m,
    );
    expect(golden.stdout).toMatch(
      /^ {2}pass {4}the collector counted every notification as the one mapping does: consumed \d+, skipped \d+, unparseable 0$/m,
    );
    expect(golden.stdout).toMatch(/^ {2}compare +simulator compare: \d+ resources, 0 differ/m);
    expect(golden.stdout).toContain("  pass    the bill equals the oracle");
    expect(golden.stdout).toContain(
      "  pass    12 statement and 0 credit note totals equal the golden month (fixtures/golden/golden/seed-1.json)",
    );
    expect(golden.stdout).toContain(
      "  pass    report.html renders in headless Chromium without a console error",
    );
    expect(golden.stdout).not.toContain("FAIL");
    expect(lines.at(-2)).toMatch(/^PASS golden seed 1 in \d+\.\d s$/);
  });

  test("not at a terminal, the progress is plain lines: no carriage return", () => {
    expect(golden.stdout).not.toContain("\r");
  });

  test("--out keeps the simulator's files, the exports, each program's log and the report", () => {
    const dir = join(out, "golden");
    for (const file of [
      "month/oracle.json",
      "month/events.jsonl",
      "month/notifications.jsonl",
      "export/finalized/rated.csv",
      "export/finalized/run.json",
      "logs/reporting.log",
      "logs/reporting-admin.log",
      "logs/engine.log",
      "logs/simulator.log",
      "report.txt",
      "result.json",
      "report.html",
      "report.png",
    ])
      expect(existsSync(join(dir, file))).toBe(true);
    expect(readFileSync(join(dir, "report.txt"), "utf8")).toBe(golden.stdout);
    // The ingest credential is issued in the run: its secret is in no log.
    expect(readFileSync(join(dir, "logs/reporting-admin.log"), "utf8")).toContain(
      "(stdout holds a secret: not logged)",
    );
    expect(readFileSync(join(dir, "logs/reporting-admin.log"), "utf8")).not.toMatch(/"secret"/);
  });

  test("leaves no harness dir and no process behind", () => {
    expect(readdirSync(temp)).toEqual([]);
    expect(processesUnder(out).filter(isAlive)).toEqual([]);
  });
});

describe("a wrong bill fails", () => {
  test("one instance's delete withheld: exit 1 (differs), the instance named with its amounts, the project's golden total moved", async () => {
    const events = readFileSync(join(out, "golden/month/events.jsonl"), "utf8")
      .split("\n")
      .filter((l) => l !== "")
      .map(
        (l) =>
          JSON.parse(l) as {
            event_id: string;
            event_type: string;
            timestamp: string;
            resource_id: string;
            project_id: string;
          },
      );
    const deleted = events.find(
      (e) => e.event_type === "compute.instance.delete.end" && e.timestamp.startsWith("2026-10-1"),
    );
    if (deleted === undefined) throw new Error("seed 1 deletes no instance in mid-October");
    const wrong = await scenario([
      "golden",
      "--seed",
      "1",
      "--drop-event",
      deleted.event_id,
      "--out",
      join(out, "wrong"),
    ]);
    expect(wrong.code).toBe(1);
    // --drop-event takes the file path: the events are posted by the runner, one withheld.
    expect(wrong.stdout.split("\n")[0]).toEndWith(
      "events posted from the simulator's files to the ingest API",
    );
    expect(wrong.stdout).toMatch(
      /^ {2}deliver +(\d+) events posted in \d+ batches: \1 accepted, 0 duplicates, 0 refused/m,
    );
    expect(wrong.stdout).toContain("1 dropped on purpose");
    expect(wrong.stdout).toMatch(
      new RegExp(
        `^ {12}instance/${deleted.resource_id}: ${deleted.project_id}/\\w+ oracle \\S+ \\(\\S+\\) export \\S+ \\(\\S+\\)`,
        "m",
      ),
    );
    expect(wrong.stdout).toContain(`  FAIL    the bill equals the oracle`);
    expect(wrong.stdout).toMatch(
      new RegExp(
        `^ {12}${deleted.project_id} compute.instance.delete.end: stored \\d+, the oracle counts \\d+$`,
        "m",
      ),
    );
    expect(wrong.stdout).toMatch(
      new RegExp(
        `^ {12}statement cloud-1/${deleted.project_id} moved by \\+\\d+\\.\\d\\d \\(\\d+\\.\\d\\d → \\d+\\.\\d\\d\\)$`,
        "m",
      ),
    );
    expect(wrong.stdout.split("\n").at(-2)).toMatch(/^FAIL golden seed 1 in /);
  }, 180_000);
});

describe("bun scenario explain", () => {
  test("a resource of a kept month: its events, the fold beside the oracle, rated lines beside the oracle's", async () => {
    const oracle = JSON.parse(readFileSync(join(out, "golden/month/oracle.json"), "utf8")) as {
      resources: { resource_type: string; resource_id: string }[];
    };
    const instance = oracle.resources.find((r) => r.resource_type === "instance");
    if (instance === undefined) throw new Error("no instance in the month");
    const explained = await scenario([
      "explain",
      "--out",
      join(out, "golden"),
      "--resource",
      instance.resource_id,
    ]);
    expect(explained.code).toBe(0);
    const text = explained.stdout;
    expect(text).toStartWith(
      `instance/${instance.resource_id} in the 2026-10 month of ${join(out, "golden")}: workload `,
    );
    expect(text).toMatch(/^ {2}2026-\d\d-\d\dT\S+ compute\.instance\.\S+ /m);
    expect(text).toContain(
      "intervals in the month: the engine's fold of the delivered events, and the oracle's",
    );
    expect(text).toMatch(/^ {2}both +\[2026-10-\S+, 2026-1\S+\) /m);
    expect(text).toContain("rated lines of the finalized bill (export/finalized/rated.csv)");
    expect(text).toMatch(/^ {2}both +\S+\/vcpus \d+\.\d{6} = \d+\.\d\d$/m);
    expect(text).not.toContain("<- differs");
  });

  test("the instance whose delete was withheld: its intervals and lines differ, and explain shows where", async () => {
    const dropped = JSON.parse(readFileSync(join(out, "wrong/result.json"), "utf8")) as { passed: boolean };
    expect(dropped.passed).toBe(false);
    const failing = readFileSync(join(out, "wrong/report.txt"), "utf8");
    const id = /^ {12}instance\/(\S+): /m.exec(failing)?.[1] ?? "";
    const explained = await scenario([
      "explain",
      "--out",
      join(out, "wrong"),
      "--resource",
      `instance/${id}`,
    ]);
    expect(explained.code).toBe(0);
    expect(explained.stdout).toMatch(
      / compute\.instance\.delete\.end .*\[dropped on purpose: never delivered\]/,
    );
    expect(explained.stdout).toMatch(/^ {2}fold +\[\S+, 2026-11-01T00:00:00\.000Z\) /m);
    expect(explained.stdout).toMatch(/^ {2}oracle +\[.* {3}<- differs$/m);
  });

  test("a directory without a month, or a resource not in it, is refused with exit 1", async () => {
    const empty = await scenario(["explain", "--out", out, "--resource", "x"]);
    expect(empty.code).toBe(1);
    expect(empty.stderr).toContain(
      `scenario: ${out} holds no scenario month: run bun scenario <name> --out ${out} first`,
    );
    const unknown = await scenario(["explain", "--out", join(out, "golden"), "--resource", "no-such-id"]);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain(
      `scenario: no resource no-such-id in the month in ${join(out, "golden")}`,
    );
  });
});

describe("bun scenario list and refusals", () => {
  test("list names every scenario with one line; none waits for a program", async () => {
    const listed = await scenario(["list"]);
    expect(listed.code).toBe(0);
    const lines = listed.stdout.trimEnd().split("\n");
    expect(lines.map((l) => l.split(/\s+/)[0])).toEqual(scenarios.map((s) => s.name));
    expect(lines.filter((l) => l.includes("(needs "))).toEqual([]);
  });

  test("a broker-path scenario refuses the file path, exit 1, nothing started", async () => {
    const viaFile = await scenario(["outage", "--via", "file"]);
    const dropping = await scenario(["outage", "--drop-event", "e"]);
    expect([viaFile.code, viaFile.stdout, viaFile.stderr.split("\n")[0]]).toEqual([
      1,
      "",
      "scenario: scenario outage runs on the broker path: --via file cannot carry it",
    ]);
    expect(dropping.stderr).toContain(
      "scenario outage runs on the broker path: --via file (implied by --drop-event) cannot carry it",
    );
  });

  test("every bad flag is named at once, exit 1, nothing started", async () => {
    const bad = await scenario([
      "golden",
      "--seed",
      "x",
      "--period",
      "2099-01",
      "--tenants",
      "0",
      "--via",
      "broker",
      "--drop-event",
      "e",
    ]);
    expect(bad.code).toBe(1);
    expect(bad.stdout).toBe("");
    expect(bad.stderr).toContain('--seed takes an integer of at least 0, got "x"');
    expect(bad.stderr).toContain("--period: 2099-01 has not ended yet");
    expect(bad.stderr).toContain('--tenants takes an integer from 1 to 2000, got "0"');
    expect(bad.stderr).toContain(
      "--drop-event withholds an event on the file path: it cannot be used with --via broker",
    );
  });
});
