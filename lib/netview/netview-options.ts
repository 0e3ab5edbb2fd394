/**
 * Netview's command line (docs/netview.md lists every flag with its default). Parsing is pure: file
 * contents come in through `readFile`, and every problem is collected so that one run names them all
 * before anything is dialled.
 */
import { dirname, resolve } from "node:path";
import { parseArgs } from "node:util";
import { parse as parseYaml } from "yaml";
import { isJsonObject } from "../json/is-json-object.ts";
import { parseRemotes, type Remote } from "../ovsdb/remote.ts";
import { parseMgmtAddrFile } from "./mgmt-addr-file.ts";

export interface ClusterOptions {
  name: string;
  nb: Remote[];
  sb: Remote[];
  /** Per chassis system-id: its switch database's management address. */
  ovsMgmt: Map<string, Remote[]> | undefined;
}

export interface NetviewOptions {
  clusters: ClusterOptions[];
  defaultCluster: string;
  hostname: string;
  port: number;
  writeEnabled: boolean;
  chassisStaleThresholdMs: number;
  wsAllowedOrigins: string[];
  probeIntervalMs: number;
  tls: { privateKey: string; certificate: string; caCert: string } | undefined;
}

export class OptionsError extends Error {
  constructor(readonly problems: string[]) {
    super(problems.join("; "));
  }
}

export const defaults = {
  ovnnbDb: "unix:/var/run/ovn/ovnnb_db.sock",
  ovnsbDb: "unix:/var/run/ovn/ovnsb_db.sock",
  listen: "127.0.0.1:8080",
  chassisStaleThreshold: "60s",
  probeInterval: "5s",
} as const;

export const usage = `usage: netview [options]
  --ovnnb-db REMOTE               northbound database (default ${defaults.ovnnbDb})
  --ovnsb-db REMOTE               southbound database (default ${defaults.ovnsbDb})
  --clusters-file PATH            several clusters (YAML or JSON); replaces --ovnnb-db/--ovnsb-db
  --listen HOST:PORT              HTTP listen address (default ${defaults.listen})
  --write-enabled                 allow the write routes (default off: read-only)
  --ovs-mgmt-addr-file PATH       chassis system-id to switch management address; enables /api/v1/ovs
  --chassis-stale-threshold DUR   lag after which an out-of-sync chassis is stale (default ${defaults.chassisStaleThreshold})
  --ws-allowed-origins LIST       comma-separated Origin allowlist of /api/v1/ws (default: none)
  --probe-interval DUR            OVSDB echo probe interval (default ${defaults.probeInterval})
  --private-key PATH, --certificate PATH, --ca-cert PATH
                                  TLS material for ssl: remotes (all three, PEM)
REMOTE is tcp:HOST:PORT, ssl:HOST:PORT or unix:PATH, several separated by commas.
DUR is a number with ms, s, m or h (e.g. 500ms, 60s, 5m).`;

export function parseDuration(text: string): number {
  const match = /^(\d+(?:\.\d+)?)(ms|s|m|h)$/.exec(text.trim());
  if (match === null) throw new Error(`${JSON.stringify(text)} is not a duration (e.g. 500ms, 60s, 5m)`);
  const scale = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 }[match[2] as "ms" | "s" | "m" | "h"];
  return Math.round(Number(match[1]) * scale);
}

export function parseListen(text: string): { hostname: string; port: number } {
  const match = /^(?:\[([^\]]+)\]|([^:]*)):(\d+)$/.exec(text.trim());
  const port = Number(match?.[3]);
  if (match === null || !(port >= 0 && port < 65536)) {
    throw new Error(`--listen ${JSON.stringify(text)}: expected HOST:PORT`);
  }
  const hostname = match[1] ?? match[2] ?? "";
  return { hostname: hostname === "" ? "0.0.0.0" : hostname, port };
}

const clusterName = /^[a-z0-9][a-z0-9_-]{0,62}$/;

/**
 * `readFile` returns a file's text or throws; `argv` excludes the program name.
 */
export function parseNetviewOptions(argv: string[], readFile: (path: string) => string): NetviewOptions {
  const problems: string[] = [];
  let values: Record<string, string | boolean | undefined>;
  try {
    values = parseArgs({
      args: argv,
      strict: true,
      allowPositionals: false,
      options: {
        "ovnnb-db": { type: "string" },
        "ovnsb-db": { type: "string" },
        "clusters-file": { type: "string" },
        listen: { type: "string", default: defaults.listen },
        "write-enabled": { type: "boolean", default: false },
        "ovs-mgmt-addr-file": { type: "string" },
        "chassis-stale-threshold": { type: "string", default: defaults.chassisStaleThreshold },
        "ws-allowed-origins": { type: "string", default: "" },
        "probe-interval": { type: "string", default: defaults.probeInterval },
        "private-key": { type: "string" },
        certificate: { type: "string" },
        "ca-cert": { type: "string" },
      },
    }).values;
  } catch (error) {
    throw new OptionsError([(error as Error).message]);
  }
  const str = (name: string) => values[name] as string | undefined;
  const attempt = <T>(what: () => T): T | undefined => {
    try {
      return what();
    } catch (error) {
      problems.push((error as Error).message);
      return undefined;
    }
  };

  const listen = attempt(() => parseListen(str("listen") as string));
  const threshold = attempt(() => parseDuration(str("chassis-stale-threshold") as string));
  const probe = attempt(() => parseDuration(str("probe-interval") as string));
  const origins = (str("ws-allowed-origins") as string)
    .split(",")
    .map((o) => o.trim())
    .filter((o) => o !== "");
  for (const origin of origins) {
    if (origin !== "*" && !URL.canParse(origin)) {
      problems.push(
        `--ws-allowed-origins: ${JSON.stringify(origin)} is not an origin (scheme://host[:port])`,
      );
    }
  }

  const mgmtPath = str("ovs-mgmt-addr-file");
  const readMgmt = (path: string) =>
    attempt(() => {
      try {
        return parseMgmtAddrFile(readFile(path));
      } catch (error) {
        throw new Error(`ovs mgmt address file ${path}: ${(error as Error).message}`);
      }
    });

  const clusters: ClusterOptions[] = [];
  let defaultCluster = "default";
  const clustersFile = str("clusters-file");
  if (clustersFile !== undefined) {
    if (str("ovnnb-db") !== undefined || str("ovnsb-db") !== undefined) {
      problems.push("--clusters-file replaces --ovnnb-db and --ovnsb-db: give one or the other");
    }
    const parsed = attempt(() => {
      try {
        return parseYaml(readFile(clustersFile)) as unknown;
      } catch (error) {
        throw new Error(`clusters file ${clustersFile}: ${(error as Error).message}`);
      }
    });
    const list = isJsonObject(parsed) ? parsed.clusters : undefined;
    if (parsed !== undefined && (!Array.isArray(list) || list.length === 0)) {
      problems.push(`clusters file ${clustersFile}: expected "clusters:" with at least one entry`);
    }
    for (const [i, raw] of (Array.isArray(list) ? list : []).entries()) {
      const where = `clusters file ${clustersFile}, entry ${i + 1}`;
      if (!isJsonObject(raw)) {
        problems.push(`${where}: not a mapping`);
        continue;
      }
      const name = raw.name;
      if (typeof name !== "string" || !clusterName.test(name)) {
        problems.push(`${where}: name must be lower-case letters, digits, - or _`);
        continue;
      }
      if (clusters.some((c) => c.name === name)) problems.push(`${where}: cluster ${name} given twice`);
      const remotes = (key: string) =>
        attempt(() => {
          const value = raw[key];
          if (typeof value !== "string") throw new Error(`${where}: ${key} is required`);
          return parseRemotes(value);
        });
      const nb = remotes("ovnnb_db");
      const sb = remotes("ovnsb_db");
      const mgmtFile = raw.ovs_mgmt_addr_file;
      // A relative path is read from the clusters file's directory, so the two can travel together.
      const ovsMgmt =
        typeof mgmtFile === "string" ? readMgmt(resolve(dirname(clustersFile), mgmtFile)) : undefined;
      if (nb !== undefined && sb !== undefined) clusters.push({ name, nb, sb, ovsMgmt });
    }
    if (isJsonObject(parsed) && typeof parsed.default === "string") defaultCluster = parsed.default;
    else if (clusters[0] !== undefined) defaultCluster = clusters[0].name;
    if (clusters.length > 0 && !clusters.some((c) => c.name === defaultCluster)) {
      problems.push(`clusters file ${clustersFile}: default cluster ${defaultCluster} is not listed`);
    }
  } else {
    const nb = attempt(() => parseRemotes(str("ovnnb-db") ?? defaults.ovnnbDb));
    const sb = attempt(() => parseRemotes(str("ovnsb-db") ?? defaults.ovnsbDb));
    if (nb !== undefined && sb !== undefined) clusters.push({ name: "default", nb, sb, ovsMgmt: undefined });
  }
  if (mgmtPath !== undefined) {
    const mapping = readMgmt(mgmtPath);
    const target = clusters.find((c) => c.name === defaultCluster);
    if (target?.ovsMgmt !== undefined) {
      problems.push("--ovs-mgmt-addr-file and the default cluster's ovs_mgmt_addr_file: give one");
    } else if (target !== undefined) {
      target.ovsMgmt = mapping;
    }
  }

  const tlsPaths = [str("private-key"), str("certificate"), str("ca-cert")];
  let tls: NetviewOptions["tls"];
  if (tlsPaths.some((p) => p !== undefined)) {
    if (tlsPaths.some((p) => p === undefined)) {
      problems.push("--private-key, --certificate and --ca-cert go together");
    } else {
      const [privateKey, certificate, caCert] = tlsPaths.map((p) =>
        attempt(() => {
          try {
            return readFile(p as string);
          } catch {
            throw new Error(`cannot read ${p}`);
          }
        }),
      );
      if (privateKey !== undefined && certificate !== undefined && caCert !== undefined) {
        tls = { privateKey, certificate, caCert };
      }
    }
  }
  const needsTls = clusters.some(
    (c) =>
      [...c.nb, ...c.sb].some((r) => r.kind === "ssl") ||
      [...(c.ovsMgmt?.values() ?? [])].some((rs) => rs.some((r) => r.kind === "ssl")),
  );
  if (needsTls && tls === undefined && !problems.some((p) => p.includes("--private-key"))) {
    problems.push("ssl: remotes need --private-key, --certificate and --ca-cert");
  }

  if (problems.length > 0 || listen === undefined || threshold === undefined || probe === undefined) {
    throw new OptionsError(problems);
  }
  return {
    clusters,
    defaultCluster,
    hostname: listen.hostname,
    port: listen.port,
    writeEnabled: values["write-enabled"] === true,
    chassisStaleThresholdMs: threshold,
    wsAllowedOrigins: origins,
    probeIntervalMs: probe,
    tls,
  };
}
