/**
 * `GET /api/v1/flows`: the SB logical flows filtered by datapath (its name, either UUID, or a UUID
 * prefix; flows shared through a datapath group count for each member), pipeline, table, stage,
 * priority and text in the match or actions, in table order, a page at a time.
 */
import type { DatabaseCache } from "../../ovsdb/database-cache.ts";
import type { Row } from "../../ovsdb/datum.ts";
import { num, str, strMap, strs } from "./row-values.ts";

interface FlowFilter {
  datapath?: string;
  pipeline?: "ingress" | "egress";
  table?: number;
  stage?: string;
  priority?: number;
  match?: string;
  actions?: string;
  limit: number;
  offset: number;
}

interface FlowPage {
  total: number;
  offset: number;
  limit: number;
  flows: ({
    uuid: string;
    datapaths: { uuid: string; name: string | null; tunnel_key: number }[];
  } & FlowFields & {
      source: string | null;
      stage_hint: string | null;
    })[];
}

/** A logical flow's own fields as the API answers them, in the flow list and the flow diff alike. */
export interface FlowFields {
  pipeline: string;
  table: number;
  stage: string | null;
  priority: number;
  match: string;
  actions: string;
}

export function flowFields(flow: Row): FlowFields {
  return {
    pipeline: str(flow.pipeline),
    table: num(flow.table_id),
    stage: strMap(flow.external_ids)["stage-name"] ?? null,
    priority: num(flow.priority),
    match: str(flow.match),
    actions: str(flow.actions),
  };
}

/** The datapaths a filter names: exact name, NB or SB UUID, or a UUID prefix; empty when none. */
export function datapathsNamed(sb: DatabaseCache, text: string): Set<string> {
  const lower = text.toLowerCase();
  const rows = sb.rows("Datapath_Binding");
  const exact = rows.filter((d) => {
    const ids = strMap(d.external_ids);
    return (
      ids.name === text ||
      ids.name2 === text ||
      d._uuid === lower ||
      ids["logical-switch"] === lower ||
      ids["logical-router"] === lower
    );
  });
  if (exact.length > 0) return new Set(exact.map((d) => d._uuid));
  if (!/^[0-9a-f-]{4,}$/.test(lower)) return new Set();
  return new Set(
    rows
      .filter((d) => {
        const ids = strMap(d.external_ids);
        return (
          d._uuid.startsWith(lower) ||
          (ids["logical-switch"] ?? ids["logical-router"] ?? "").startsWith(lower)
        );
      })
      .map((d) => d._uuid),
  );
}

export function flowPage(sb: DatabaseCache, filter: FlowFilter): FlowPage {
  const groups = new Map(sb.rows("Logical_DP_Group").map((g) => [g._uuid, strs(g.datapaths)]));
  const wanted = filter.datapath === undefined ? undefined : datapathsNamed(sb, filter.datapath);
  const datapathsOf = (f: Row) => [
    ...(typeof f.logical_datapath === "string" ? [f.logical_datapath] : []),
    ...(typeof f.logical_dp_group === "string" ? (groups.get(f.logical_dp_group) ?? []) : []),
  ];
  const matchText = filter.match?.toLowerCase();
  const actionsText = filter.actions?.toLowerCase();
  const selected = sb.rows("Logical_Flow").filter((f) => {
    if (filter.pipeline !== undefined && f.pipeline !== filter.pipeline) return false;
    if (filter.table !== undefined && num(f.table_id) !== filter.table) return false;
    if (filter.priority !== undefined && num(f.priority) !== filter.priority) return false;
    if (filter.stage !== undefined && strMap(f.external_ids)["stage-name"] !== filter.stage) return false;
    if (matchText !== undefined && !str(f.match).toLowerCase().includes(matchText)) return false;
    if (actionsText !== undefined && !str(f.actions).toLowerCase().includes(actionsText)) return false;
    if (wanted !== undefined && !datapathsOf(f).some((d) => wanted.has(d))) return false;
    return true;
  });
  selected.sort(
    (a, b) =>
      (a.pipeline === b.pipeline ? 0 : a.pipeline === "ingress" ? -1 : 1) ||
      num(a.table_id) - num(b.table_id) ||
      num(b.priority) - num(a.priority) ||
      (a._uuid < b._uuid ? -1 : 1),
  );
  const page = selected.slice(filter.offset, filter.offset + filter.limit);
  return {
    total: selected.length,
    offset: filter.offset,
    limit: filter.limit,
    flows: page.map((f) => {
      const ids = strMap(f.external_ids);
      return {
        uuid: f._uuid,
        datapaths: datapathsOf(f).map((d) => {
          const dp = sb.get("Datapath_Binding", d);
          return { uuid: d, name: strMap(dp?.external_ids).name ?? null, tunnel_key: num(dp?.tunnel_key) };
        }),
        ...flowFields(f),
        source: ids.source ?? null,
        stage_hint: ids["stage-hint"] ?? null,
      };
    }),
  };
}
