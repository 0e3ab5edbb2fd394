/**
 * A port or a datapath found by the name a user gives, as ovn-trace finds them: the exact name, the
 * friendly name (`external_ids:name` or `name2`), then a unique UUID prefix of four or more digits.
 */
import type { LogicalNetwork, TraceDatapath, TracePort } from "./logical-network.ts";

/** ovntrace_port_lookup_by_name: exact name, then external_ids:name, then a UUID prefix of 4+. */
export function lookupPortByName(net: LogicalNetwork, name: string): TracePort | undefined {
  const exact = net.ports.get(name);
  if (exact !== undefined) return exact;
  let match: TracePort | undefined;
  for (const port of net.ports.values()) {
    if (port.name2 === name) {
      if (match !== undefined) return undefined;
      match = port;
    }
  }
  if (/^[0-9a-fA-F-]+$/.test(name) && name.replaceAll("-", "").length >= 4) {
    const lower = name.toLowerCase();
    for (const port of net.ports.values()) {
      if (port.uuid.startsWith(lower) || port.name.toLowerCase().startsWith(lower)) {
        if (match !== undefined && match !== port) return undefined;
        match = port;
      }
    }
  }
  return match;
}

/** ovntrace_datapath_find_by_name: name or name2, then a UUID prefix (4+) of the SB or NB row. */
export function findDatapath(net: LogicalNetwork, name: string): TraceDatapath | undefined {
  const exact = net.datapaths.find((d) => d.name === name || d.name2 === name);
  if (exact !== undefined) return exact;
  if (name.replaceAll("-", "").length < 4) return undefined;
  const lower = name.toLowerCase();
  const matches = net.datapaths.filter((d) => d.uuid.startsWith(lower) || d.nbUuid.startsWith(lower));
  return matches.length === 1 ? matches[0] : undefined;
}
