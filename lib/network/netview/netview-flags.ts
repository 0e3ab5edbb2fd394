/** Netview's flags (docs/netview.md lists them with their defaults); OVN's own names where OVN has one. */
export const netviewDefaults = {
  ovnnbDb: "unix:/var/run/ovn/ovnnb_db.sock",
  ovnsbDb: "unix:/var/run/ovn/ovnsb_db.sock",
  listen: "127.0.0.1:8080",
  chassisStaleThreshold: "60s",
  probeInterval: "5s",
  eventsRetention: "24h",
  eventsMax: "200000",
  snapshotsMax: "20",
} as const;

const remote = "REMOTE is tcp:HOST:PORT, ssl:HOST:PORT or unix:PATH, several separated by commas";

export const netviewArgs = {
  "ovnnb-db": {
    type: "string",
    valueHint: "remote",
    description: `northbound database; ${remote} (default: ${netviewDefaults.ovnnbDb})`,
  },
  "ovnsb-db": {
    type: "string",
    valueHint: "remote",
    description: `southbound database (default: ${netviewDefaults.ovnsbDb})`,
  },
  "clusters-file": {
    type: "string",
    valueHint: "path",
    description: "several clusters (YAML or JSON); replaces --ovnnb-db and --ovnsb-db",
  },
  listen: {
    type: "string",
    valueHint: "host:port",
    default: netviewDefaults.listen,
    description: "HTTP listen address",
  },
  "write-enabled": {
    type: "boolean",
    default: false,
    description: "allow the write routes (read-only otherwise)",
  },
  "write-token-file": {
    type: "string",
    valueHint: "path",
    description:
      "file holding the bearer token (at least 32 characters) of every change: silences, alert rules, snapshots, and with --write-enabled the write routes; needed by --write-enabled",
  },
  "ovs-mgmt-addr-file": {
    type: "string",
    valueHint: "path",
    description: "chassis system-id to switch management address; enables /api/v1/ovs",
  },
  "chassis-stale-threshold": {
    type: "string",
    valueHint: "duration",
    default: netviewDefaults.chassisStaleThreshold,
    description: "lag after which an out-of-sync chassis is stale (such as 500ms, 60s, 5m, 1h30m)",
  },
  "ws-allowed-origins": {
    type: "string",
    valueHint: "list",
    default: "",
    description: "comma-separated Origin allowlist of /api/v1/ws",
  },
  "probe-interval": {
    type: "string",
    valueHint: "duration",
    default: netviewDefaults.probeInterval,
    description: "OVSDB echo probe interval, at least 100ms",
  },
  "state-dir": {
    type: "string",
    valueHint: "path",
    description:
      "directory of netview's own state (events, snapshots, alerts, plans, audit); in memory without it",
  },
  "events-retention": {
    type: "string",
    valueHint: "duration",
    default: netviewDefaults.eventsRetention,
    description: "how long recorded database changes are kept",
  },
  "events-max": {
    type: "string",
    valueHint: "count",
    default: netviewDefaults.eventsMax,
    description: "at most this many recorded database changes are kept (the oldest go first)",
  },
  "snapshots-max": {
    type: "string",
    valueHint: "count",
    default: netviewDefaults.snapshotsMax,
    description: "snapshots kept; a new one beyond this removes the oldest that is not loaded",
  },
  "private-key": { type: "string", valueHint: "path", description: "TLS private key (PEM) for ssl: remotes" },
  certificate: { type: "string", valueHint: "path", description: "TLS certificate (PEM) for ssl: remotes" },
  "ca-cert": { type: "string", valueHint: "path", description: "TLS CA certificate (PEM) for ssl: remotes" },
} as const;

/** `--listen HOST:PORT` (`[v6]:PORT`; an empty host listens on every address). */
export function parseListen(text: string): { hostname: string; port: number } {
  const match = /^(?:\[([^\]]+)\]|([^:]*)):(\d+)$/.exec(text.trim());
  const port = Number(match?.[3]);
  if (match === null || !(port >= 0 && port < 65536)) {
    throw new RangeError(`takes HOST:PORT, got ${JSON.stringify(text)}`);
  }
  const hostname = match[1] ?? match[2] ?? "";
  return { hostname: hostname === "" ? "0.0.0.0" : hostname, port };
}

/** `--ws-allowed-origins`: `*` or origins (scheme://host[:port]), comma-separated. */
export function parseOrigins(text: string): string[] {
  const origins = text
    .split(",")
    .map((o) => o.trim())
    .filter((o) => o !== "");
  const bad = origins.filter((o) => o !== "*" && !URL.canParse(o));
  if (bad.length > 0) {
    throw new RangeError(
      `${bad.map((o) => JSON.stringify(o)).join(", ")}: not an origin (scheme://host[:port])`,
    );
  }
  return origins;
}
