import { expect, test } from "bun:test";
import { readdirSync } from "node:fs";
import { runProgram } from "../harness/process/run-program.ts";
import manifest from "../package.json" with { type: "json" };

/**
 * Every program in cmd/ follows lib/foundation/cli's convention (decision 40). A program joins by adding its row:
 * how to ask for its help (and a flag the help must list), and one bad flag plus one bad variable that
 * must both be named in one refusal.
 */
interface Row {
  help: string[];
  lists: string[];
  bad: { argv: string[]; env: Record<string, string>; named: string[] };
}

const loud = { SVC_LOG_LEVEL: "loud" };
const logLevel = 'SVC_LOG_LEVEL takes exactly one of DEBUG, INFO, WARN, ERROR, got "loud"';

const programs: Record<string, Row> = {
  reporting: {
    help: ["--help"],
    lists: ["SVC_REPORTING_DB_URL", "SVC_REPORTING_HTTP_PORT"],
    bad: {
      argv: ["--bogus"],
      env: { ...loud, SVC_REPORTING_DB_URL: "postgres://localhost/x", SVC_REPORTING_AUTH_MODE: "disabled" },
      named: ["unknown flag --bogus", logLevel],
    },
  },
  "reporting-admin": {
    help: ["token", "issue", "--help"],
    lists: ["--role", "--projects", "SVC_REPORTING_DB_URL"],
    bad: {
      argv: ["migrate", "--bogus"],
      env: {},
      named: ["unknown flag --bogus", "SVC_REPORTING_DB_URL is required"],
    },
  },
  simulator: {
    help: ["run", "--help"],
    lists: ["--period", "--faults", "--wait-for-collector", "(default: 744)", "SVC_SIM_CLOUD"],
    bad: {
      // An unknown flag does not hide the bad values beside it (decision 40).
      argv: ["run", "--period", "2026-10", "--bogus", "--out", "/nonexistent/x", "--seed", "x"],
      env: { SVC_SIM_CLOUD: "c", SVC_SIM_HTTP_PORT: "http" },
      named: [
        "unknown flag --bogus",
        '--seed takes an integer, got "x"',
        'SVC_SIM_HTTP_PORT takes an integer from 0 to 65535, got "http"',
      ],
    },
  },
  netview: {
    help: ["--help"],
    lists: ["--ovnnb-db", "--probe-interval", "(default: 5s)", "SVC_METRICS_ENABLED"],
    bad: {
      argv: ["--listen", "nowhere"],
      env: loud,
      named: ['--listen takes HOST:PORT, got "nowhere"', logLevel],
    },
  },
  scenario: {
    help: ["up", "--help"],
    lists: ["SVC_LOG_LEVEL"],
    bad: { argv: ["up", "--bogus"], env: loud, named: ["unknown flag --bogus", logLevel] },
  },
  engine: {
    help: ["run", "--help"],
    lists: ["--period", "--pricing", "SVC_ENGINE_DB_URL", "SVC_ENGINE_ADJUSTMENT_DEPTH"],
    bad: {
      argv: ["run", "--period", "2026-13"],
      env: {
        SVC_ENGINE_DB_URL: "postgres://localhost/x",
        SVC_ENGINE_REPORTING_DB_URL: "postgres://localhost/y",
        SVC_ENGINE_ADJUSTMENT_DEPTH: "deep",
      },
      named: [
        '--period: a period is written YYYY-MM, got "2026-13"',
        'SVC_ENGINE_ADJUSTMENT_DEPTH takes an integer from 1 to 32, got "deep"',
      ],
    },
  },
  collector: {
    help: ["--help"],
    lists: ["--dump", "SVC_OSC_AMQP_URL", "SVC_OSC_QUEUE_TYPE", "(default: quorum)"],
    bad: {
      argv: ["--bogus"],
      env: { SVC_OSC_AMQP_URL: "amqp://localhost", SVC_OSC_QUEUE_TYPE: "lazy" },
      named: ["unknown flag --bogus", 'SVC_OSC_QUEUE_TYPE takes exactly one of quorum, classic, got "lazy"'],
    },
  },
};

test("the table names every program in cmd/", () => {
  const scripts = readdirSync(import.meta.dir)
    .filter((f) => f.endsWith(".ts") && !f.endsWith(".test.ts"))
    .map((f) => f.replace(/\.ts$/, ""));
  expect(Object.keys(programs).sort()).toEqual(scripts.sort());
});

for (const [name, row] of Object.entries(programs)) {
  test(`${name}: --help exits 0 and lists its flags and settings`, async () => {
    const help = await runProgram(`cmd/${name}.ts`, row.help);
    expect({ code: help.code, stderr: help.stderr }).toEqual({ code: 0, stderr: "" });
    for (const fragment of row.lists) expect(help.stdout).toContain(fragment);
  });

  test(`${name}: --version prints the program and the package's version, exit 0`, async () => {
    const version = await runProgram(`cmd/${name}.ts`, ["--version"]);
    expect(version).toEqual({ code: 0, stdout: `${name} (svc) ${manifest.version}\n`, stderr: "" });
  });

  test(`${name}: a bad flag and a bad variable are named at once, exit 1`, async () => {
    const out = await runProgram(`cmd/${name}.ts`, row.bad.argv, row.bad.env);
    const lines = out.stderr.trimEnd().split("\n");
    expect({ code: out.code, stdout: out.stdout }).toEqual({ code: 1, stdout: "" });
    expect(lines.slice(0, -1)).toEqual(row.bad.named.map((problem) => `${name}: ${problem}`));
    expect(lines.at(-1)).toMatch(new RegExp(`^${name}: see '${name}.* --help'$`));
  });
}
