import type { JsonObject } from "../../../foundation/json/json-value.ts";
import type { PayloadEnvelope } from "../../events/event.ts";

export interface SizeNameRow {
  member: string;
  value: string;
  name: string;
}

/** member -> value -> name, for one (cloud, resource_type) pair. */
export type SizeNameTable = Map<string, Map<string, string>>;

export function sizeNameTable(rows: readonly SizeNameRow[]): SizeNameTable {
  const table: SizeNameTable = new Map();
  for (const row of rows) {
    let values = table.get(row.member);
    if (!values) {
      values = new Map();
      table.set(row.member, values);
    }
    values.set(row.value, row.name);
  }
  return table;
}

/**
 * Size-name replacement (1-reporting-api.md, Size names, rules 2–5): a size member holding a string
 * equal to a row's value under that row's member becomes the row's name; absent, non-string and
 * unmatched members stay as sent. With at least one replacement the payload carries
 * `provider.size_as_reported`, the replaced members as they arrived, overwriting any the item brought
 * (the pipeline owns it). Without a replacement the payload is returned unchanged. Pure.
 */
export function replaceSizeNames(
  payload: PayloadEnvelope,
  table: SizeNameTable | undefined,
): PayloadEnvelope {
  const size = payload.size;
  if (!size || !table || table.size === 0) return payload;
  const replaced: JsonObject = {};
  const next: JsonObject = { ...size };
  let any = false;
  for (const [member, value] of Object.entries(size)) {
    if (typeof value !== "string") continue;
    const name = table.get(member)?.get(value);
    if (name === undefined) continue;
    next[member] = name;
    replaced[member] = value;
    any = true;
  }
  if (!any) return payload;
  return { ...payload, size: next, provider: { ...(payload.provider ?? {}), size_as_reported: replaced } };
}
