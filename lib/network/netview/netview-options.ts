/**
 * Netview's options from its flags (`netview-flags.ts`), the clusters file (`clusters-file.ts`), the
 * management address file (`mgmt-addr-file.ts`) and the TLS files (`tls-files.ts`). Pure: file
 * contents come in through `readFile`, and every problem is gathered into one UsageError so that one
 * run names them all before anything is dialled.
 */
import type { FlagsOf } from "../../foundation/cli/command.ts";
import { parseInteger } from "../../foundation/cli/flag-values.ts";
import { parseFlags } from "../../foundation/cli/parse-flags.ts";
import { Problems, UsageError } from "../../foundation/cli/usage-error.ts";
import type { Secret } from "../../foundation/config/secret.ts";
import { parseDuration } from "../../foundation/time/duration.ts";
import { parseRemotes } from "../ovsdb/remote.ts";
import type { ClusterOptions } from "./cluster-options.ts";
import { readClustersFile } from "./clusters-file.ts";
import { readMgmtAddrFile } from "./mgmt-addr-file.ts";
import { netviewArgs, netviewDefaults, parseListen, parseOrigins } from "./netview-flags.ts";
import { readTlsFiles, type TlsMaterial } from "./tls-files.ts";
import { readWriteToken } from "./write/write-token.ts";

export interface NetviewOptions {
  clusters: ClusterOptions[];
  defaultCluster: string;
  hostname: string;
  port: number;
  writeEnabled: boolean;
  /** The bearer token of the write routes; always set when writeEnabled (decision 355). */
  writeToken: Secret | undefined;
  chassisStaleThresholdMs: number;
  wsAllowedOrigins: string[];
  probeIntervalMs: number;
  tls: TlsMaterial | undefined;
  /** Netview's own state directory; in memory when undefined (decision 351). */
  stateDir: string | undefined;
  eventsRetentionMs: number;
  eventsMax: number;
  snapshotsMax: number;
}

type NetviewFlags = FlagsOf<typeof netviewArgs>;

function clustersOf(flags: NetviewFlags, readFile: (path: string) => string, problems: Problems) {
  const file = flags["clusters-file"];
  if (file !== undefined) {
    if (flags["ovnnb-db"] !== undefined || flags["ovnsb-db"] !== undefined) {
      problems.add("--clusters-file replaces --ovnnb-db and --ovnsb-db: give one or the other");
    }
    return problems.attempt("", () => readClustersFile(file, readFile));
  }
  const nb = problems.attempt("--ovnnb-db", () => parseRemotes(flags["ovnnb-db"] ?? netviewDefaults.ovnnbDb));
  const sb = problems.attempt("--ovnsb-db", () => parseRemotes(flags["ovnsb-db"] ?? netviewDefaults.ovnsbDb));
  if (nb === undefined || sb === undefined) return undefined;
  return { clusters: [{ name: "default", nb, sb, ovsMgmt: undefined }], defaultCluster: "default" };
}

const usesTls = (clusters: ClusterOptions[]) =>
  clusters.some(
    (c) =>
      [...c.nb, ...c.sb].some((r) => r.kind === "ssl") ||
      [...(c.ovsMgmt?.values() ?? [])].some((rs) => rs.some((r) => r.kind === "ssl")),
  );

/** The options of parsed flags; throws one UsageError naming every problem. */
export function netviewOptions(flags: NetviewFlags, readFile: (path: string) => string): NetviewOptions {
  const problems = new Problems();
  const listen = problems.attempt("--listen", () => parseListen(flags.listen));
  const threshold = problems.attempt("--chassis-stale-threshold", () =>
    parseDuration(flags["chassis-stale-threshold"]),
  );
  const probe = problems.attempt("--probe-interval", () =>
    parseDuration(flags["probe-interval"], { minMs: 100 }),
  );
  const eventsRetention = problems.attempt("--events-retention", () =>
    parseDuration(flags["events-retention"], { minMs: 1000 }),
  );
  const eventsMax = problems.attempt("--events-max", () =>
    parseInteger(flags["events-max"], { min: 100, max: 100_000_000 }),
  );
  const snapshotsMax = problems.attempt("--snapshots-max", () =>
    parseInteger(flags["snapshots-max"], { min: 1, max: 10_000 }),
  );
  const origins = problems.attempt("--ws-allowed-origins:", () => parseOrigins(flags["ws-allowed-origins"]));
  const found = clustersOf(flags, readFile, problems);
  const tokenPath = flags["write-token-file"];
  const writeToken =
    tokenPath === undefined ? undefined : problems.attempt("", () => readWriteToken(tokenPath, readFile));
  if (flags["write-enabled"] && tokenPath === undefined) {
    problems.add(
      "--write-enabled needs --write-token-file: the write routes are never served without a credential",
    );
  }
  const mgmtPath = flags["ovs-mgmt-addr-file"];
  if (mgmtPath !== undefined) {
    const mapping = problems.attempt("", () => readMgmtAddrFile(mgmtPath, readFile));
    const target = found?.clusters.find((c) => c.name === found.defaultCluster);
    if (target?.ovsMgmt !== undefined) {
      problems.add("--ovs-mgmt-addr-file and the default cluster's ovs_mgmt_addr_file: give one");
    } else if (target !== undefined) {
      target.ovsMgmt = mapping;
    }
  }
  const tls = problems.attempt("", () =>
    readTlsFiles(
      { privateKey: flags["private-key"], certificate: flags.certificate, caCert: flags["ca-cert"] },
      readFile,
    ),
  );
  if (found !== undefined && usesTls(found.clusters) && tls === undefined && problems.list.length === 0) {
    problems.add("ssl: remotes need --private-key, --certificate and --ca-cert");
  }
  problems.throwIfAny();
  if (
    listen === undefined ||
    threshold === undefined ||
    probe === undefined ||
    found === undefined ||
    eventsRetention === undefined ||
    eventsMax === undefined ||
    snapshotsMax === undefined
  ) {
    throw new UsageError("the options could not be read");
  }
  return {
    clusters: found.clusters,
    defaultCluster: found.defaultCluster,
    hostname: listen.hostname,
    port: listen.port,
    writeEnabled: flags["write-enabled"],
    writeToken,
    chassisStaleThresholdMs: threshold,
    wsAllowedOrigins: origins ?? [],
    probeIntervalMs: probe,
    tls,
    stateDir: flags["state-dir"],
    eventsRetentionMs: eventsRetention,
    eventsMax,
    snapshotsMax,
  };
}

/** `argv` (without the program name) read as netview's flags and turned into options, for tests and tools. */
export function parseNetviewOptions(
  argv: readonly string[],
  readFile: (path: string) => string,
): NetviewOptions {
  const { values, problems } = parseFlags(argv, netviewArgs);
  if (problems.length > 0) throw new UsageError(problems);
  return netviewOptions(values as NetviewFlags, readFile);
}
