/**
 * OpenAPI descriptions of `GET /api/v1/events` and the `/api/v1/ws` stream (docs/netview.md "Change
 * events"): their query parameters (the filter event-filter.ts reads) and answers, member by member.
 */
import { arr, n, obj, s } from "../debug/debug-shapes.ts";
import { rowSchema } from "../openapi-shapes.ts";
import type { ParamSpec } from "../query-params.ts";
import { feedDatabases } from "./change-event.ts";
import { eventLimit } from "./event-filter.ts";

type JsonSchema = Record<string, unknown>;

const list = (name: string, description: string, values?: readonly string[]): ParamSpec => ({
  name,
  type: "string",
  repeated: true,
  ...(values === undefined ? {} : { enum: values }),
  description: `${description} (comma-separated, or the parameter repeated)`,
});

/** The filter both take. */
const filterParams: ParamSpec[] = [
  list("cluster", "Only these clusters"),
  list("database", "Only these databases", feedDatabases),
  list("table", "Only these tables (OVSDB names)"),
  list("op", "Only these operations", ["insert", "update", "delete"]),
  list("uuid", "Only these rows"),
];

const since: ParamSpec = {
  name: "since",
  type: "integer",
  minimum: 0,
  description: "Only events after this seq (exclusive), oldest first: page on with the last seq seen",
};

export const eventParams: ParamSpec[] = [
  ...filterParams,
  since,
  { name: "before", type: "integer", minimum: 1, description: "Only events before this seq (exclusive)" },
  {
    name: "from",
    type: "string",
    format: "date-time",
    description: "Only events seen at or after (RFC 3339)",
  },
  { name: "to", type: "string", format: "date-time", description: "Only events seen before (RFC 3339)" },
  {
    name: "limit",
    type: "integer",
    minimum: 1,
    maximum: eventLimit.max,
    default: eventLimit.default,
    description: "Most events returned: the first after since, else the latest",
  },
];

export const streamParams: ParamSpec[] = [
  ...filterParams,
  { ...since, description: "Replay the stored events after this seq, then go live without a gap" },
];

export const changeEventSchema = obj({
  seq: s("integer", "rises by one per event across the server"),
  at: s("string", "when netview saw the change (RFC 3339)"),
  cluster: s("string"),
  database: { enum: [...feedDatabases] },
  table: s("string"),
  uuid: s("string"),
  op: { enum: ["insert", "update", "delete"] },
  txn: s("integer", "shared by the rows of one monitor notification"),
  resync: s(
    "boolean",
    "found by a full resync after a lost session or a restart: happened while netview was not watching",
  ),
  coalesced: s(
    "boolean",
    "ovsdb-server may have merged several committed changes of this row into this one (values between never sent)",
  ),
  old: {
    oneOf: [{ type: "object" }, { type: "null" }],
    description: "delete: the row; update: the changed columns as they were; insert: null",
  },
  new: { oneOf: [rowSchema, { type: "null" }], description: "insert and update: the row after" },
});

export const eventsSchema: JsonSchema = obj({
  events: arr(changeEventSchema),
  retained: obj({ oldest_seq: n("integer"), latest_seq: n("integer"), count: s("integer") }),
});
