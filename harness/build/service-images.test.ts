/**
 * The services' images and executables (decisions 517-518). No container engine runs here, so each
 * target of the Containerfile is reproduced in a temp dir (its COPY steps minus .dockerignore, its
 * production install from bun.lock, offline) and each service is started from that tree as the image
 * would start it, as an unprivileged user, with its probes and its HEALTHCHECK answering; then from
 * its executable of `./svc build`, compiled once for the run. The migrations run from both too.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { reportingDocsPath } from "../../lib/billing/reporting/contract/reporting-contract.ts";
import { declaredExchanges } from "../../lib/billing/simulator/notification-line.ts";
import { declareExchanges } from "../collector/publisher.ts";
import { Daemon } from "../process/daemon.ts";
import { freePort, releasePort } from "../process/free-port.ts";
import { systemUser } from "../process/system-user.ts";
import { makeTempDir, type SystemUser, type TempDir } from "../process/temp-dir.ts";
import { waitFor } from "../process/wait-for.ts";
import type { OvnService } from "../services/ovn.ts";
import { services } from "../test-services.ts";
import { compilePrograms, type DeployedProgram, deployedPrograms } from "./compile-programs.ts";
import { parseContainerfile } from "./containerfile.ts";
import { type ImageTree, reproduceStage, treeFiles } from "./image-tree.ts";
import { asPlayer, type ImageCommand, inImage } from "./in-image.ts";

const root = join(import.meta.dir, "../..");
const serviceTargets = ["reporting", "collector", "netview"] as const;
type ServiceTarget = (typeof serviceTargets)[number];
/** Every target: the services, and the engine, a command with no port and no HEALTHCHECK (decision 528). */
const imageTargets = [...serviceTargets, "engine"] as const;
type ImageTarget = (typeof imageTargets)[number];

/** What each service is given beside its image's own settings, and where its docs page is. */
interface Dependencies {
  reportingDbUrl: string;
  amqpUrl: string;
  ovn: OvnService;
}

const given: Record<
  ServiceTarget,
  { env: (d: Dependencies) => Record<string, string>; args: (d: Dependencies) => string[]; docs: string }
> = {
  reporting: {
    env: (d) => ({ SVC_REPORTING_DB_URL: d.reportingDbUrl, SVC_REPORTING_INTERNAL_TOKEN: "image-test" }),
    args: () => [],
    docs: reportingDocsPath,
  },
  collector: {
    env: (d) => ({
      SVC_OSC_AMQP_URL: d.amqpUrl,
      // Nothing is published: the Reporting API is never called, only named.
      SVC_OSC_REPORTING_URL: "http://127.0.0.1:9",
      SVC_OSC_REPORTING_INSECURE: "true",
      SVC_OSC_INGEST_TOKEN: "image-test",
      SVC_OSC_CLOUD: "cloud-1",
      // Debian's RabbitMQ 3.10 has no quorum queues for the default (docs/collector.md).
      SVC_OSC_QUEUE_TYPE: "classic",
    }),
    args: () => [],
    docs: "",
  },
  netview: {
    env: () => ({}),
    args: (d) => ["--ovnnb-db", d.ovn.nbRemote, "--ovnsb-db", d.ovn.sbRemote],
    docs: "/api/v1/docs",
  },
};

/** Runs a short command as the player and returns its exit code and words. */
async function runAs(player: SystemUser, command: ImageCommand) {
  const child = Bun.spawn(asPlayer(player, command), { cwd: command.cwd, stdout: "pipe", stderr: "pipe" });
  const [stdout, stderr, code] = await Promise.all([
    new Response(child.stdout).text(),
    new Response(child.stderr).text(),
    child.exited,
  ]);
  return { code, said: `${stdout}${stderr}`.trim() };
}

// typescript is a peer of @elysiajs/openapi and @types/bun an optional peer of elysia: bun installs
// peers with --production, so only the other development dependencies must be absent.
const peersOfProduction = ["typescript", "@types/bun"];
const devOnly = Object.keys(
  (
    JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as {
      devDependencies: Record<string, string>;
    }
  ).devDependencies,
).filter((name) => !peersOfProduction.includes(name));

let temp: TempDir;
let player: SystemUser;
const trees = {} as Record<ImageTarget, ImageTree>;
const executables = {} as Record<DeployedProgram, string>;
let deps: Dependencies;

beforeAll(async () => {
  temp = makeTempDir("images");
  player = systemUser("nobody");
  const file = parseContainerfile(readFileSync(join(root, "Containerfile"), "utf8"));
  const ignore = readFileSync(join(root, ".dockerignore"), "utf8")
    .split("\n")
    .map((l) => l.trim())
    .filter((l) => l !== "" && !l.startsWith("#"));
  const common = { file, context: root, ignore, player };
  const [pg, rabbit, ovn] = await Promise.all([
    services.postgres(),
    services.rabbitmq(),
    services.ovn(),
    (async () => {
      const base = await reproduceStage({ ...common, stage: "base", root: join(temp.path, "base") });
      for (const target of imageTargets)
        trees[target] = await reproduceStage({
          ...common,
          stage: target,
          above: base,
          root: join(temp.path, target),
        });
    })(),
    (async () => {
      // Compiled once for the run.
      Object.assign(executables, await compilePrograms(deployedPrograms, temp.sub("bin", { mode: 0o755 })));
    })(),
  ]);
  const amqpUrl = await rabbit.createVhost();
  // The platform's services declare their exchanges; the collector is ready once it has bound them.
  await declareExchanges(amqpUrl, declaredExchanges);
  deps = { reportingDbUrl: await pg.createDatabase(), amqpUrl, ovn };
}, 900_000);

afterAll(() => temp?.remove());

describe("what an image carries", () => {
  test("the official Bun image of the version package.json pins", () => {
    const file = parseContainerfile(readFileSync(join(root, "Containerfile"), "utf8"));
    const pinned = (
      JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as { engines: { bun: string } }
    ).engines.bun;
    expect(file.stages[0]?.from).toBe(`docker.io/oven/bun:${pinned}-slim`);
  });

  test("production dependencies only, no test and no test helper, run as the image's user", () => {
    for (const target of imageTargets) {
      const tree = trees[target];
      const modules = join(tree.root, "app/node_modules");
      expect({ target, elysia: existsSync(join(modules, "elysia")) }).toEqual({ target, elysia: true });
      const dev = devOnly.filter((p) => existsSync(join(modules, p)));
      expect({ target, dev }).toEqual({ target, dev: [] });
      const tests = treeFiles(tree, "/app").filter(
        (f) => !f.startsWith("node_modules/") && (f.endsWith(".test.ts") || f.startsWith("harness/")),
      );
      expect({ target, tests }).toEqual({ target, tests: [] });
      expect({ target, user: tree.user, healthcheck: tree.healthcheck !== undefined }).toEqual({
        target,
        user: "bun",
        healthcheck: target !== "engine",
      });
    }
  });
});

/** Starts a service, waits for its probes, runs the image's HEALTHCHECK, fetches its docs page assets, stops it. */
async function probeService(options: {
  name: string;
  command: ImageCommand;
  port: number;
  healthcheck: ImageCommand | undefined;
  docs: string;
}): Promise<{
  healthz: number;
  readyz: number;
  healthcheck: number | null;
  docsAsset: number | null;
  exit: number | null;
}> {
  const [command, ...args] = asPlayer(player, options.command);
  const daemon = new Daemon({
    name: options.name,
    command: command ?? "setpriv",
    args,
    cwd: options.command.cwd,
    logFile: join(temp.path, `${options.name}.log`),
  });
  const base = `http://127.0.0.1:${options.port}`;
  const status = async (path: string) => (await fetch(`${base}${path}`).catch(() => null))?.status ?? 0;
  try {
    await daemon.waitReady(async () => (await status("/healthz")) === 200, 60_000);
    // Readiness follows the broker session and the OVN monitors: it may take a moment more.
    let said = "";
    await waitFor(
      async () => {
        const answer = await fetch(`${base}/readyz`).catch(() => null);
        said = `${answer?.status ?? "no answer"} ${(await answer?.text()) ?? ""}`;
        return answer?.status === 200;
      },
      {
        timeoutMs: 60_000,
        onTimeout: () => new Error(`${options.name}: /readyz answered ${said}\n${daemon.logTail()}`),
      },
    );
    const healthcheck =
      options.healthcheck === undefined ? null : (await runAs(player, options.healthcheck)).code;
    const docsAsset = options.docs === "" ? null : await status(`${options.docs}/assets/swagger-ui.css`);
    const result = {
      healthz: await status("/healthz"),
      readyz: await status("/readyz"),
      healthcheck,
      docsAsset,
    };
    await daemon.stop(10_000);
    return { ...result, exit: (await daemon.exited).code };
  } finally {
    await daemon.stop();
    releasePort(options.port);
  }
}

describe("each service from its reproduced image", () => {
  test("reporting-admin migrates from the image", async () => {
    const migrate = inImage(trees.reporting, ["bun", "cmd/reporting-admin.ts", "migrate"], {
      ports: new Map(),
      env: { SVC_REPORTING_DB_URL: deps.reportingDbUrl },
    });
    const run = await runAs(player, migrate);
    expect({ code: run.code, said: run.code === 0 ? "" : run.said }).toEqual({ code: 0, said: "" });
  });

  test("the engine migrates and runs a month from its image, with the pricing model it carries", async () => {
    const pg = await services.postgres();
    const [engineDb, reportingDb] = await Promise.all([pg.createDatabase(), pg.createDatabase()]);
    const noPorts = new Map<number, number>();
    const reporting = await runAs(
      player,
      inImage(trees.reporting, ["bun", "cmd/reporting-admin.ts", "migrate"], {
        ports: noPorts,
        env: { SVC_REPORTING_DB_URL: reportingDb },
      }),
    );
    const engine = (args: string[]) =>
      runAs(
        player,
        inImage(trees.engine, [...trees.engine.entrypoint, ...args], {
          ports: noPorts,
          env: { SVC_ENGINE_DB_URL: engineDb, SVC_ENGINE_REPORTING_DB_URL: reportingDb },
        }),
      );
    const migrate = await engine(["migrate"]);
    const run = await engine(["run", "--period", "2026-10", "--pricing", "pricing/default.yaml"]);
    expect({
      reporting: reporting.code,
      migrate: migrate.code,
      run: run.code,
      completed: /^run \S+ completed for 2026-10 with pricing model /m.test(run.said) ? "yes" : run.said,
    }).toEqual({ reporting: 0, migrate: 0, run: 0, completed: "yes" });
  }, 120_000);

  for (const target of serviceTargets) {
    test(`${target}: probes and HEALTHCHECK answer, SIGTERM ends it cleanly`, async () => {
      const tree = trees[target];
      const port = await freePort();
      const ports = new Map(tree.exposed.map((p) => [p, port]));
      const env = given[target].env(deps);
      const result = await probeService({
        name: `${target}-image`,
        command: inImage(tree, [...tree.entrypoint, ...given[target].args(deps)], { ports, env }),
        port,
        healthcheck: tree.healthcheck === undefined ? undefined : inImage(tree, tree.healthcheck, { ports }),
        docs: given[target].docs,
      });
      expect(result).toEqual({
        healthz: 200,
        readyz: 200,
        healthcheck: 0,
        docsAsset: given[target].docs === "" ? null : 200,
        exit: 0,
      });
    }, 120_000);
  }
});

describe("each program from its executable", () => {
  test("reporting-admin and engine migrate from their embedded migrations", async () => {
    const pg = await services.postgres();
    const engineDb = await pg.createDatabase();
    const bare = (argv: string[], env: Record<string, string>): ImageCommand => ({
      argv,
      cwd: temp.sub("empty", { mode: 0o755 }),
      env: { HOME: "/nonexistent", ...env },
    });
    // Fresh databases: every migration is read from the executable and applied.
    const reportingDb = await pg.createDatabase();
    const reporting = await runAs(
      player,
      bare([executables["reporting-admin"], "migrate"], { SVC_REPORTING_DB_URL: reportingDb }),
    );
    const engine = await runAs(
      player,
      bare([executables.engine, "migrate"], { SVC_ENGINE_DB_URL: engineDb }),
    );
    expect([reporting.code, engine.code, `${reporting.said}\n${engine.said}`]).toMatchObject([
      0,
      0,
      expect.any(String),
    ]);
  });

  for (const target of serviceTargets) {
    test(`${target}: probes answer from the executable alone, SIGTERM ends it cleanly`, async () => {
      const tree = trees[target];
      const port = await freePort();
      const ports = new Map(tree.exposed.map((p) => [p, port]));
      // The image's settings and arguments, with the executable in place of `bun cmd/<program>.ts`, run
      // from a directory holding nothing: it needs no source, no node_modules.
      const inTree = inImage(
        tree,
        [executables[target], ...tree.entrypoint.slice(2), ...given[target].args(deps)],
        {
          ports,
          env: given[target].env(deps),
        },
      );
      const result = await probeService({
        name: `${target}-executable`,
        command: { ...inTree, cwd: temp.sub("empty", { mode: 0o755 }) },
        port,
        healthcheck: undefined,
        docs: given[target].docs,
      });
      expect(result).toEqual({
        healthz: 200,
        readyz: 200,
        healthcheck: null,
        docsAsset: given[target].docs === "" ? null : 200,
        exit: 0,
      });
    }, 120_000);
  }
});
