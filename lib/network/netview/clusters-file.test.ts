import { expect, test } from "bun:test";
import { UsageError } from "../../foundation/cli/usage-error.ts";
import { readClustersFile } from "./clusters-file.ts";

const files: Record<string, string> = {
  "/etc/nv/c.yaml": `clusters:
  - name: east
    ovnnb_db: tcp:10.0.0.1:6641
    ovnsb_db: tcp:10.0.0.1:6642
    ovs_mgmt_addr_file: mgmt.txt
`,
  "/etc/nv/mgmt.txt": "chassis-1 tcp:127.0.0.1:6640\n",
  "/etc/nv/bad.yaml": `default: north
clusters:
  - name: East
  - name: west
    ovnsb_db: tcp:h:1
  - 7
`,
};
const read = (path: string) => {
  const text = files[path];
  if (text === undefined) throw new Error("ENOENT");
  return text;
};

test("clusters, the first one the default, a management file beside the clusters file", () => {
  const { clusters, defaultCluster } = readClustersFile("/etc/nv/c.yaml", read);
  expect(defaultCluster).toBe("east");
  expect(clusters.map((c) => [c.name, c.nb.length, c.sb.length, [...(c.ovsMgmt?.keys() ?? [])]])).toEqual([
    ["east", 1, 1, ["chassis-1"]],
  ]);
});

test("every entry's problem is named at once", () => {
  let problems: readonly string[] = [];
  try {
    readClustersFile("/etc/nv/bad.yaml", read);
  } catch (error) {
    if (error instanceof UsageError) problems = error.problems;
  }
  expect(problems).toEqual([
    "clusters file /etc/nv/bad.yaml, entry 1: name must be lower-case letters, digits, - or _",
    "clusters file /etc/nv/bad.yaml, entry 2: ovnnb_db is required",
    "clusters file /etc/nv/bad.yaml, entry 3: not a mapping",
  ]);
  expect(() => readClustersFile("/missing.yaml", read)).toThrow("clusters file /missing.yaml: ENOENT");
});
