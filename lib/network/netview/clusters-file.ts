/**
 * The `--clusters-file`: several OVN clusters in one YAML (or JSON) document,
 * `{default?: name, clusters: [{name, ovnnb_db, ovnsb_db, ovs_mgmt_addr_file?}]}`. A relative
 * management file is read from the clusters file's directory, so the two can travel together.
 */
import { dirname, resolve } from "node:path";
import type * as Yaml from "yaml";
import { Problems, UsageError } from "../../foundation/cli/usage-error.ts";
import { isJsonObject } from "../../foundation/json/is-json-object.ts";
import { parseRemotes } from "../ovsdb/remote.ts";
import type { ClusterOptions } from "./cluster-options.ts";
import { readMgmtAddrFile } from "./mgmt-addr-file.ts";

const clusterName = /^[a-z0-9][a-z0-9_-]{0,62}$/;

/** Every cluster of the file and the default one; throws one UsageError naming every problem. */
export function readClustersFile(
  path: string,
  readFile: (path: string) => string,
): { clusters: ClusterOptions[]; defaultCluster: string } {
  const problems = new Problems();
  let parsed: unknown;
  try {
    // Loaded only for a clusters file: netview parses its flags before it dials, and most runs
    // have no such file (decision 339).
    const { parse } = require("yaml") as typeof Yaml;
    parsed = parse(readFile(path));
  } catch (error) {
    throw new UsageError(
      `clusters file ${path}: ${error instanceof Error ? error.message : "cannot be read"}`,
    );
  }
  const list = isJsonObject(parsed) ? parsed.clusters : undefined;
  if (!Array.isArray(list) || list.length === 0) {
    throw new UsageError(`clusters file ${path}: expected "clusters:" with at least one entry`);
  }
  const clusters: ClusterOptions[] = [];
  for (const [i, raw] of list.entries()) {
    const where = `clusters file ${path}, entry ${i + 1}:`;
    if (!isJsonObject(raw)) {
      problems.add(`${where} not a mapping`);
      continue;
    }
    const name = raw.name;
    if (typeof name !== "string" || !clusterName.test(name)) {
      problems.add(`${where} name must be lower-case letters, digits, - or _`);
      continue;
    }
    if (clusters.some((c) => c.name === name)) problems.add(`${where} cluster ${name} given twice`);
    const remotes = (key: string) => {
      const value = raw[key];
      if (typeof value !== "string") {
        problems.add(`${where} ${key} is required`);
        return undefined;
      }
      return problems.attempt(`${where} ${key}:`, () => parseRemotes(value));
    };
    const nb = remotes("ovnnb_db");
    const sb = remotes("ovnsb_db");
    const mgmtFile = raw.ovs_mgmt_addr_file;
    const ovsMgmt =
      typeof mgmtFile === "string"
        ? problems.attempt("", () => readMgmtAddrFile(resolve(dirname(path), mgmtFile), readFile))
        : undefined;
    if (nb !== undefined && sb !== undefined) clusters.push({ name, nb, sb, ovsMgmt });
  }
  const named = isJsonObject(parsed) && typeof parsed.default === "string" ? parsed.default : undefined;
  const defaultCluster = named ?? clusters[0]?.name ?? "default";
  if (clusters.length > 0 && !clusters.some((c) => c.name === defaultCluster)) {
    problems.add(`clusters file ${path}: default cluster ${defaultCluster} is not listed`);
  }
  problems.throwIfAny();
  return { clusters, defaultCluster };
}
