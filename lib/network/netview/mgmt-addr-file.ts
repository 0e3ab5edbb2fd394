/**
 * The `--ovs-mgmt-addr-file`: which management address each chassis's switch database listens on.
 * Either a JSON object `{"<system-id>": "<remote>"}` or lines `<system-id> <remote>` (`=` also
 * separates; `#` starts a comment). A remote is in OVS syntax (`tcp:`, `ssl:`, `unix:`).
 */
import { UsageError } from "../../foundation/cli/usage-error.ts";
import { parseRemotes, type Remote } from "../ovsdb/remote.ts";

export class MgmtAddrFileError extends Error {}

export function parseMgmtAddrFile(text: string): Map<string, Remote[]> {
  const out = new Map<string, Remote[]>();
  const add = (systemId: string, remote: string, where: string) => {
    if (systemId === "" || /\s/.test(systemId)) throw new MgmtAddrFileError(`${where}: bad system-id`);
    if (out.has(systemId)) throw new MgmtAddrFileError(`${where}: system-id ${systemId} given twice`);
    try {
      out.set(systemId, parseRemotes(remote));
    } catch (error) {
      throw new MgmtAddrFileError(`${where}: ${(error as Error).message}`);
    }
  };
  const trimmed = text.trim();
  if (trimmed.startsWith("{")) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(trimmed);
    } catch (error) {
      throw new MgmtAddrFileError(`not valid JSON: ${(error as Error).message}`);
    }
    for (const [systemId, remote] of Object.entries(parsed as Record<string, unknown>)) {
      if (typeof remote !== "string")
        throw new MgmtAddrFileError(`${systemId}: the address must be a string`);
      add(systemId, remote, systemId);
    }
    return out;
  }
  text.split("\n").forEach((raw, index) => {
    const line = raw.replace(/#.*/, "").trim();
    if (line === "") return;
    const match = /^(\S+?)\s*(?:=|\s)\s*(\S+)$/.exec(line);
    if (match === null) throw new MgmtAddrFileError(`line ${index + 1}: expected "<system-id> <remote>"`);
    add(match[1] as string, match[2] as string, `line ${index + 1}`);
  });
  return out;
}

/** The file at `path`, parsed; a file that cannot be read or parsed is one refusal naming the path. */
export function readMgmtAddrFile(path: string, readFile: (path: string) => string): Map<string, Remote[]> {
  let text: string;
  try {
    text = readFile(path);
  } catch {
    throw new UsageError(`ovs mgmt address file ${path}: cannot be read`);
  }
  try {
    return parseMgmtAddrFile(text);
  } catch (error) {
    if (!(error instanceof MgmtAddrFileError)) throw error;
    throw new UsageError(`ovs mgmt address file ${path}: ${error.message}`, { cause: error });
  }
}
