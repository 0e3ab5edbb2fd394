/** Readers of row columns in the ovsdb-json convention (docs/ovsdb-json.md), for the derived views. */

import { compare } from "../../../foundation/collections/compare.ts";
import type { ColumnValue, Row } from "../../ovsdb/datum.ts";

export const str = (v: ColumnValue | undefined): string => (typeof v === "string" ? v : "");
export const optStr = (v: ColumnValue | undefined): string | null => (typeof v === "string" ? v : null);
export const num = (v: ColumnValue | undefined): number => (typeof v === "number" ? v : 0);
export const optBool = (v: ColumnValue | undefined): boolean | null => (typeof v === "boolean" ? v : null);
export const strs = (v: ColumnValue | undefined): string[] => (Array.isArray(v) ? v.map(String) : []);
export const strMap = (v: ColumnValue | undefined): Record<string, string> =>
  v !== null && typeof v === "object" && !Array.isArray(v)
    ? Object.fromEntries(Object.entries(v).map(([k, x]) => [k, String(x)]))
    : {};

export function byUuid(rows: Row[]): Map<string, Row> {
  return new Map(rows.map((r) => [r._uuid, r]));
}

/** Groups rows by a key; a row with no key (undefined) is left out. */
export function groupBy<K>(rows: Row[], key: (r: Row) => K | undefined): Map<K, Row[]> {
  const out = new Map<K, Row[]>();
  for (const r of rows) {
    const k = key(r);
    if (k === undefined) continue;
    const list = out.get(k) ?? [];
    list.push(r);
    out.set(k, list);
  }
  return out;
}

export const byName = (a: { name: string }, b: { name: string }) => compare(a.name, b.name);
