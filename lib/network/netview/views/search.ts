/**
 * `GET /api/v1/search?q=`: one box for whatever an operator has in hand. The query is read as a UUID
 * (full or a prefix of four or more hex digits), a MAC, an IP address or CIDR, or text; every NB and
 * SB row is tried against what that kind can match (names, addresses inside CIDRs and address sets,
 * external ids such as neutron's port and network ids), and hits are ranked: exact identity first,
 * then exact values, containment, prefixes and substrings. Pure over the caches.
 */
import { parseIpv4, parseIpv6, parseMac, prefixMask } from "../../ovn-logic/addresses.ts";
import type { DatabaseCache } from "../../ovsdb/database-cache.ts";
import type { ColumnValue, Row } from "../../ovsdb/datum.ts";
import { nbTables, sbTables } from "../table-names.ts";

type QueryKind = "uuid" | "mac" | "ip" | "cidr" | "text";

interface SearchHit {
  kind: string;
  database: "nb" | "sb";
  table: string;
  uuid: string;
  name: string | null;
  field: string;
  value: string;
  score: number;
  /** Where to look next: the correlated view when there is one, else the table row. */
  href: string;
}

interface SearchResult {
  query: string;
  kind: QueryKind;
  total: number;
  truncated: boolean;
  hits: SearchHit[];
}

interface Address {
  family: 4 | 6;
  value: bigint;
  prefix: number;
}

function parseAddress(text: string): Address | undefined {
  const [ip, prefixText, extra] = text.split("/");
  if (extra !== undefined || ip === undefined) return undefined;
  const v4 = parseIpv4(ip);
  const family = v4 !== undefined ? 4 : parseIpv6(ip) !== undefined ? 6 : undefined;
  if (family === undefined) return undefined;
  const width = family === 4 ? 32 : 128;
  const prefix =
    prefixText === undefined ? width : /^[0-9]{1,3}$/.test(prefixText) ? Number(prefixText) : Number.NaN;
  if (!(prefix >= 0 && prefix <= width)) return undefined;
  return { family, value: (v4 ?? parseIpv6(ip) ?? 0n) & prefixMask(prefix, width), prefix };
}

/** Whether `a` and `b` overlap (one network contains the other, or they are the same address). */
function overlaps(a: Address, b: Address): boolean {
  if (a.family !== b.family) return false;
  const width = a.family === 4 ? 32 : 128;
  const mask = prefixMask(Math.min(a.prefix, b.prefix), width);
  return (a.value & mask) === (b.value & mask);
}

const kindOf: Record<string, string> = {
  Logical_Switch: "logical_switch",
  Logical_Switch_Port: "logical_switch_port",
  Logical_Router: "logical_router",
  Logical_Router_Port: "logical_router_port",
  Port_Binding: "port_binding",
  Chassis: "chassis",
};

function href(database: "nb" | "sb", table: string, uuid: string): string {
  const correlated: Record<string, string> = {
    "nb/Logical_Switch": "logical-switches",
    "nb/Logical_Switch_Port": "logical-switch-ports",
    "nb/Logical_Router": "logical-routers",
    "nb/Logical_Router_Port": "logical-router-ports",
    "sb/Port_Binding": "port-bindings",
    "sb/Chassis": "chassis",
  };
  const view = correlated[`${database}/${table}`];
  if (view !== undefined) return `/api/v1/correlated/${view}/${uuid}`;
  const routes = database === "nb" ? nbTables : sbTables;
  const route = Object.entries(routes).find(([, t]) => t === table)?.[0];
  return route === undefined ? "" : `/api/v1/${database}/${route}/${uuid}`;
}

/** Every string a column holds: atoms, set members, map keys' values (named `col:key`). */
function values(row: Row): [string, string][] {
  const out: [string, string][] = [];
  for (const [column, v] of Object.entries(row) as [string, ColumnValue][]) {
    if (column === "_uuid") continue;
    if (typeof v === "string") {
      out.push([column, v]);
    } else if (Array.isArray(v)) {
      for (const x of v) if (typeof x === "string") out.push([column, x]);
    } else if (v !== null && typeof v === "object") {
      for (const [k, x] of Object.entries(v)) out.push([column, k], [`${column}:${k}`, String(x)]);
    }
  }
  return out;
}

const uuidColumnRe = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** Tables not worth searching by value: flows (their text names everything) and counters. */
const skipValues = new Set([
  "Logical_Flow",
  "Logical_DP_Group",
  "RBAC_Role",
  "RBAC_Permission",
  "Meter_Band",
  "SSL",
]);

function classify(q: string): QueryKind {
  const t = q.trim().toLowerCase();
  if (/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/.test(t)) return "uuid";
  if (parseMac(t) !== undefined) return "mac";
  const a = parseAddress(t);
  if (a !== undefined) return t.includes("/") ? "cidr" : "ip";
  if (/^[0-9a-f-]{4,36}$/.test(t) && /[0-9]/.test(t) && !/^[0-9]+$/.test(t)) return "uuid";
  return "text";
}

export function search(
  q: string,
  dbs: { nb: DatabaseCache; sb: DatabaseCache },
  limit: number,
): SearchResult {
  const query = q.trim();
  const lower = query.toLowerCase();
  const kind = classify(query);
  // A UUID prefix may be all digits or all letters, and then reads as text or an address: whatever
  // else it may be, hex of UUID length or less is matched against the row UUIDs too.
  const uuidPrefix = kind === "uuid" || /^[0-9a-f-]{4,36}$/.test(lower);
  const mac = kind === "mac" ? parseMac(lower) : undefined;
  const address = kind === "ip" || kind === "cidr" ? parseAddress(lower) : undefined;
  const hits: SearchHit[] = [];
  for (const [database, cache] of [
    ["nb", dbs.nb],
    ["sb", dbs.sb],
  ] as const) {
    const schema = cache.schema;
    if (schema === undefined) continue;
    for (const table of Object.keys(schema.tables)) {
      for (const row of cache.rows(table)) {
        const name =
          typeof row.name === "string"
            ? row.name
            : typeof row.logical_port === "string"
              ? row.logical_port
              : null;
        const add = (field: string, value: string, score: number) =>
          hits.push({
            kind: kindOf[table] ?? table.toLowerCase(),
            database,
            table,
            uuid: row._uuid,
            name,
            field,
            value,
            score,
            href: href(database, table, row._uuid),
          });
        if (uuidPrefix) {
          if (row._uuid === lower) add("_uuid", row._uuid, 100);
          else if (row._uuid.startsWith(lower)) add("_uuid", row._uuid, 70);
        }
        if (skipValues.has(table)) continue;
        let best: [string, string, number] | undefined;
        const consider = (field: string, value: string, score: number) => {
          if (best === undefined || score > best[2]) best = [field, value, score];
        };
        for (const [field, value] of values(row)) {
          if (uuidColumnRe.test(value) && kind !== "uuid") continue;
          const v = value.toLowerCase();
          if (kind === "mac" && mac !== undefined) {
            for (const word of v.split(/[\s,]+/)) if (parseMac(word) === mac) consider(field, value, 85);
          } else if (address !== undefined) {
            for (const word of v.split(/[\s,"[\]]+/)) {
              const a = parseAddress(word.replace(/:[0-9]+$/, (m) => (word.includes(".") ? "" : m)));
              if (a === undefined) continue;
              if (a.value === address.value && a.prefix === address.prefix) consider(field, value, 85);
              else if (overlaps(a, address)) consider(field, value, a.prefix < address.prefix ? 60 : 55);
            }
          } else if (kind === "uuid") {
            if (v === lower) consider(field, value, 80);
            else if (v.startsWith(lower)) consider(field, value, 50);
          }
          if (kind === "text" || kind === "uuid") {
            const isName = field === "name" || field === "logical_port" || field === "hostname";
            if (v === lower) consider(field, value, isName ? 90 : 80);
            else if (v.startsWith(lower)) consider(field, value, isName ? 60 : 45);
            else if (lower.length >= 3 && v.includes(lower)) consider(field, value, isName ? 40 : 30);
          }
        }
        if (best !== undefined) add(best[0], best[1], best[2]);
      }
    }
  }
  // Ties: the NB first (what the operator configured), then by name.
  hits.sort(
    (a, b) =>
      b.score - a.score ||
      (a.database === b.database ? 0 : a.database === "nb" ? -1 : 1) ||
      (a.name ?? "").localeCompare(b.name ?? "") ||
      (a.uuid < b.uuid ? -1 : 1),
  );
  return { query, kind, total: hits.length, truncated: hits.length > limit, hits: hits.slice(0, limit) };
}
