import { describe, expect, test } from "bun:test";
import { UsageError } from "../../foundation/cli/usage-error.ts";
import { parseNetviewOptions } from "./netview-options.ts";

const files: Record<string, string> = {
  "/c.yaml": `default: west
clusters:
  - name: east
    ovnnb_db: tcp:10.0.0.1:6641
    ovnsb_db: tcp:10.0.0.1:6642
  - name: west
    ovnnb_db: tcp:10.0.1.1:6641,tcp:10.0.1.2:6641
    ovnsb_db: unix:/run/sb.sock
    ovs_mgmt_addr_file: m.txt
`,
  "/m.txt": "chassis-1 tcp:127.0.0.1:6640\n",
  "/bad.yaml": "clusters: []\n",
  "/token": `${"t".repeat(40)}\n`,
  "/short-token": "abc\n",
};
const read = (path: string) => {
  const text = files[path];
  if (text === undefined) throw new Error("ENOENT");
  return text;
};
const problems = (argv: string[]) => {
  try {
    parseNetviewOptions(argv, read);
  } catch (error) {
    if (error instanceof UsageError) return error.problems;
    throw error;
  }
  return [];
};

describe("netview options", () => {
  test("defaults", () => {
    const o = parseNetviewOptions([], read);
    expect(o).toMatchObject({
      hostname: "127.0.0.1",
      port: 8080,
      writeEnabled: false,
      chassisStaleThresholdMs: 60_000,
      probeIntervalMs: 5000,
      wsAllowedOrigins: [],
      defaultCluster: "default",
      tls: undefined,
    });
    expect(o.clusters[0]?.nb[0]).toMatchObject({ kind: "unix", path: "/var/run/ovn/ovnnb_db.sock" });
  });

  test("flags", () => {
    const o = parseNetviewOptions(
      [
        "--ovnnb-db=tcp:127.0.0.1:6641",
        "--ovnsb-db",
        "tcp:127.0.0.1:6642",
        "--listen=:9000",
        "--write-enabled",
        "--write-token-file=/token",
        "--ovs-mgmt-addr-file=/m.txt",
        "--chassis-stale-threshold=90s",
        "--ws-allowed-origins=https://a.example, https://b.example",
      ],
      read,
    );
    expect(o).toMatchObject({
      hostname: "0.0.0.0",
      port: 9000,
      writeEnabled: true,
      chassisStaleThresholdMs: 90_000,
    });
    expect(o.wsAllowedOrigins).toEqual(["https://a.example", "https://b.example"]);
    expect(o.writeToken?.reveal()).toBe("t".repeat(40));
    expect(String(o.writeToken)).toBe("[redacted]");
    expect([...(o.clusters[0]?.ovsMgmt?.keys() ?? [])]).toEqual(["chassis-1"]);
  });

  test("a clusters file", () => {
    const o = parseNetviewOptions(["--clusters-file=/c.yaml"], read);
    expect(o.clusters.map((c) => c.name)).toEqual(["east", "west"]);
    expect(o.defaultCluster).toBe("west");
    expect(o.clusters[1]?.nb).toHaveLength(2);
    expect(o.clusters[1]?.ovsMgmt?.size).toBe(1);
  });

  test("every problem at once, each named", () => {
    expect(
      problems([
        "--listen=nowhere",
        "--chassis-stale-threshold=soon",
        "--ovnnb-db=http://x",
        "--ovs-mgmt-addr-file=/missing",
        "--ws-allowed-origins=not a url",
      ]),
    ).toEqual([
      '--listen takes HOST:PORT, got "nowhere"',
      '--chassis-stale-threshold takes a duration such as 0, 500ms, 90s, 5m or 1h30m, got "soon"',
      '--ws-allowed-origins: "not a url": not an origin (scheme://host[:port])',
      '--ovnnb-db remote "http://x": expected tcp:HOST:PORT, ssl:HOST:PORT or unix:PATH',
      "ovs mgmt address file /missing: cannot be read",
    ]);
  });

  // Each alone: the clusters file, remotes and TLS files, and writes that need a long enough token.
  test.each<[string[], string]>([
    [["--clusters-file=/bad.yaml"], 'clusters file /bad.yaml: expected "clusters:" with at least one entry'],
    [
      ["--clusters-file=/c.yaml", "--ovnnb-db=tcp:h:1"],
      "--clusters-file replaces --ovnnb-db and --ovnsb-db: give one or the other",
    ],
    [["--ovnnb-db=ssl:h:1"], "ssl: remotes need --private-key, --certificate and --ca-cert"],
    [["--private-key=/m.txt"], "--private-key, --certificate and --ca-cert go together"],
    [["--nope", "--probe-interval=10ms"], "unknown flag --nope"],
    [["--probe-interval=10ms"], '--probe-interval takes a duration of at least 100ms, got "10ms"'],
    [
      ["--write-enabled"],
      "--write-enabled needs --write-token-file: the write routes are never served without a credential",
    ],
    [
      ["--write-enabled", "--write-token-file=/short-token"],
      "--write-token-file /short-token: must hold one token of at least 32 characters without spaces (for example: openssl rand -hex 32)",
    ],
    [["--write-token-file=/missing"], "--write-token-file /missing: cannot be read"],
  ])("%p is refused", (args, refusal) => {
    expect(problems(args)).toEqual([refusal]);
  });

  test("durations take the shared grammar", () => {
    const o = parseNetviewOptions(["--chassis-stale-threshold=1h30m", "--probe-interval=1.5s"], read);
    expect([o.chassisStaleThresholdMs, o.probeIntervalMs]).toEqual([5_400_000, 1500]);
  });
});
