import { describe, expect, test } from "bun:test";
import { OptionsError, parseDuration, parseNetviewOptions } from "./netview-options.ts";

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
    if (error instanceof OptionsError) return error.problems;
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
    expect([...(o.clusters[0]?.ovsMgmt?.keys() ?? [])]).toEqual(["chassis-1"]);
  });

  test("a clusters file", () => {
    const o = parseNetviewOptions(["--clusters-file=/c.yaml"], read);
    expect(o.clusters.map((c) => c.name)).toEqual(["east", "west"]);
    expect(o.defaultCluster).toBe("west");
    expect(o.clusters[1]?.nb).toHaveLength(2);
    expect(o.clusters[1]?.ovsMgmt?.size).toBe(1);
  });

  test("every problem at once", () => {
    const list = problems([
      "--listen=nowhere",
      "--chassis-stale-threshold=soon",
      "--ovnnb-db=http://x",
      "--ovs-mgmt-addr-file=/missing",
      "--ws-allowed-origins=not a url",
    ]);
    expect(list).toHaveLength(5);
    expect(problems(["--clusters-file=/bad.yaml"])[0]).toContain("at least one entry");
    expect(problems(["--clusters-file=/c.yaml", "--ovnnb-db=tcp:h:1"])[0]).toContain("replaces");
    expect(problems(["--ovnnb-db=ssl:h:1"])[0]).toContain("--private-key");
    expect(problems(["--private-key=/m.txt"])[0]).toContain("go together");
    expect(problems(["--nope"])[0]).toContain("nope");
  });

  test("durations", () => {
    expect(parseDuration("500ms")).toBe(500);
    expect(parseDuration("1.5m")).toBe(90_000);
    expect(() => parseDuration("10")).toThrow();
  });
});
