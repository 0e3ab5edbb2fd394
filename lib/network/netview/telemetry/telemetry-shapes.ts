/**
 * OpenAPI descriptions of the telemetry answers (docs/netview.md "Telemetry"), member by member. The
 * objects allow members beyond those listed, so that a member added to an answer is not a contract
 * break before its description follows; the contract test checks every listed one.
 */

import { syncStatuses } from "../chassis-inventory.ts";
import { arr, n, s } from "../debug/debug-shapes.ts";
import type { ParamSpec } from "../query-params.ts";

type JsonSchema = Record<string, unknown>;

/** An object with at least these members. */
const has = (properties: Record<string, JsonSchema>, description?: string): JsonSchema => ({
  type: "object",
  properties,
  required: Object.keys(properties),
  ...(description === undefined ? {} : { description }),
});
const counts: JsonSchema = { type: "object", additionalProperties: { type: "integer" } };
const schemaName: JsonSchema = {
  oneOf: [has({ name: s("string"), version: s("string") }), { type: "null" }],
};
const raftStates = ["healthy", "degraded", "no_leader", "unreachable", "standalone", "unknown"];

const databaseSummary = has({
  state: s("string"),
  authoritative: s("boolean"),
  schema: schemaName,
  rows: { ...counts, description: "rows of the main tables" },
});

export const summarySchema = has({
  cluster: s("string"),
  stale: s("boolean"),
  suspended: s("boolean"),
  nb: databaseSummary,
  sb: databaseSummary,
  chassis: has({
    total: s("integer"),
    alive: s("integer"),
    ...Object.fromEntries(syncStatuses.map((status) => [status, s("integer")])),
  }),
  ports: has({ vif: s("integer"), bound: s("integer"), up: s("integer") }),
  propagation: has({ nb_cfg: s("integer"), sb_cfg: s("integer"), hv_cfg: s("integer") }),
  raft: { type: "object", additionalProperties: { enum: raftStates }, description: "per database" },
});

const raftMember = has({
  remote: s("string"),
  reachable: s("boolean"),
  error: n("string"),
  model: { enum: ["standalone", "clustered", "relay", null] },
  connected: n("boolean"),
  leader: n("boolean"),
  index: n("integer"),
  sid: n("string"),
  cid: n("string"),
});

const raftHealthMembers = {
  cluster: s("string"),
  database: { enum: ["nb", "sb"] },
  state: { enum: raftStates },
  clustered: s("boolean"),
  members: s("integer"),
  reachable: s("integer"),
  connected: s("integer"),
  leader: { ...n("string"), description: "the leader's remote" },
  index_spread: n("integer"),
  checked_at: n("string"),
};

export const raftHealthSchema = arr(has(raftHealthMembers));

export const raftClusterSchema = arr(
  has({
    cluster: s("string"),
    database: { enum: ["nb", "sb"] },
    name: s("string"),
    checked_at: n("string"),
    members: arr(raftMember),
    health: has(raftHealthMembers),
  }),
);

export const flowCountsSchema = has({
  total: s("integer"),
  on_datapath_groups: s("integer"),
  by_pipeline: counts,
  by_datapath: arr(
    has({
      datapath: s("string"),
      name: n("string"),
      flows: s("integer"),
      own: s("integer"),
      shared: s("integer"),
    }),
  ),
  by_table: arr(
    has({ pipeline: s("string"), table_id: s("integer"), stage: n("string"), flows: s("integer") }),
  ),
});

export const propagationSchema = has({
  cluster: s("string"),
  nb: has({
    nb_cfg: s("integer"),
    nb_cfg_timestamp: n("string"),
    sb_cfg: s("integer"),
    sb_cfg_timestamp: n("string"),
    hv_cfg: s("integer"),
    hv_cfg_timestamp: n("string"),
  }),
  sb: has({ nb_cfg: s("integer") }),
  chassis: arr(
    has({
      name: s("string"),
      nb_cfg: s("integer"),
      nb_cfg_timestamp: n("string"),
      behind: s("integer"),
      in_sync: s("boolean"),
      delay_ms: n("integer"),
    }),
  ),
  in_sync: s("integer"),
  behind: s("integer"),
  current: {
    oneOf: [
      has({ nb_cfg: s("integer"), started_at: s("string"), sb_ms: n("integer"), hv_ms: n("integer") }),
      { type: "null" },
    ],
  },
});

export const heatmapSchema = has({
  generations: arr(s("integer")),
  chassis: arr(s("string")),
  cells: {
    ...arr(arr(n("integer"))),
    description: "cells[chassis][generation]: milliseconds, null not reached",
  },
});

export const timelineSchema = arr(
  has({
    nb_cfg: s("integer"),
    started_at: s("string"),
    sb_ms: n("integer"),
    hv_ms: n("integer"),
    chassis: arr(has({ name: s("string"), ms: s("integer") })),
  }),
);

export const generationParams: ParamSpec[] = [
  {
    name: "limit",
    type: "integer",
    minimum: 1,
    maximum: 100,
    default: 20,
    description: "How many of the latest nb_cfg generations",
  },
];
