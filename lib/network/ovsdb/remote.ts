/**
 * OVSDB remotes in the syntax OVS tools take (`ovsdb-client`, `ovn-nbctl --db`): `tcp:HOST:PORT`,
 * `ssl:HOST:PORT`, `unix:PATH`, several separated by commas for a cluster (tried in turn).
 * IPv6 hosts are bracketed: `tcp:[::1]:6641`.
 */

export type Remote =
  | { kind: "tcp" | "ssl"; host: string; port: number; text: string }
  | { kind: "unix"; path: string; text: string };

export class RemoteError extends RangeError {}

export function parseRemote(text: string): Remote {
  const trimmed = text.trim();
  if (trimmed.startsWith("unix:")) {
    const path = trimmed.slice(5);
    if (path === "") throw new RemoteError(`remote ${JSON.stringify(text)}: empty socket path`);
    return { kind: "unix", path, text: trimmed };
  }
  const match = /^(tcp|ssl):(?:\[([^\]]+)\]|([^:[\]]+)):(\d+)$/.exec(trimmed);
  const kind = match?.[1];
  const host = match?.[2] ?? match?.[3];
  const port = Number(match?.[4]);
  if ((kind !== "tcp" && kind !== "ssl") || host === undefined || !(port > 0 && port < 65536)) {
    throw new RemoteError(
      `remote ${JSON.stringify(text)}: expected tcp:HOST:PORT, ssl:HOST:PORT or unix:PATH`,
    );
  }
  return { kind, host, port, text: trimmed };
}

/** A comma-separated list, as `--ovnnb-db` takes it. */
export function parseRemotes(text: string): Remote[] {
  const parts = text.split(",").filter((p) => p.trim() !== "");
  if (parts.length === 0) throw new RemoteError("no remote given");
  return parts.map(parseRemote);
}
