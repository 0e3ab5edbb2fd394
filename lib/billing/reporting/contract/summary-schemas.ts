import { Type } from "@sinclair/typebox";
import { Instant, JsonObjectSchema, Name, RegistryId } from "./common-schemas.ts";
import { StoredEventSchema } from "./event-schemas.ts";
import { ResourceStatusSchema } from "./read-schemas.ts";

const Minutes = Type.Number({ minimum: 0, description: "minutes, to the millisecond (3 decimals)" });

export const ProjectSummarySchema = Type.Object(
  {
    project: Type.Object(
      { id: RegistryId, platform: Type.String(), cloud: Type.String(), external_id: Type.String() },
      {
        additionalProperties: false,
        description: "identifying members only; name and metadata need read_all",
      },
    ),
    from: Instant,
    to: Instant,
    resource_types: Type.Array(
      Type.Object(
        {
          resource_type: Type.String(),
          created: Type.Integer({
            minimum: 0,
            description: "resources the project's own events created in the window",
          }),
          deleted: Type.Integer({
            minimum: 0,
            description: "resources the project's own events deleted in the window",
          }),
          minutes: Type.Number({
            minimum: 0,
            description:
              "minutes the project held live resources of the type inside the window; an open interval counts up to the request instant",
          }),
          minutes_by_state: Type.Record(Type.String(), Minutes, {
            description: "the same minutes per state (the empty string for none)",
          }),
          active_now: Type.Integer({
            minimum: 0,
            description: "not deleted resources the project owns now (projection)",
          }),
        },
        { additionalProperties: false },
      ),
    ),
  },
  { $id: "ProjectSummary", additionalProperties: false },
);

export const summaryQuery = Type.Object(
  {
    from: Type.String({ format: "date-time", description: "inclusive" }),
    to: Type.String({ format: "date-time", description: "exclusive; from at or after to gives zeros" }),
  },
  { additionalProperties: false },
);

const dimension = Type.Union([Type.String(), Type.Null()]);

export const ResourceStatsListSchema = Type.Object(
  {
    items: Type.Array(
      Type.Object(
        {
          cloud: Type.Optional(dimension),
          resource_type: Type.Optional(dimension),
          state: Type.Optional(dimension),
          platform: Type.Optional(dimension),
          project_id: Type.Optional(dimension),
          count: Type.Integer({ minimum: 1 }),
        },
        { additionalProperties: false },
      ),
    ),
  },
  { $id: "ResourceStatsList", additionalProperties: false },
);

export const EventStatsListSchema = Type.Object(
  {
    items: Type.Array(
      Type.Object(
        {
          bucket: Instant,
          cloud: Type.Optional(dimension),
          event_type: Type.Optional(dimension),
          source: Type.Optional(dimension),
          count: Type.Integer({ minimum: 1 }),
        },
        { additionalProperties: false },
      ),
    ),
  },
  { $id: "EventStatsList", additionalProperties: false },
);

export const resourceStatsQuery = Type.Object(
  {
    group_by: Type.String({
      description:
        "comma-separated cloud, resource_type, state, platform, project_id; must include cloud and resource_type; each once",
    }),
    status: ResourceStatusSchema,
    at: Type.Optional(Type.String({ description: "any value is answered 501 (omit it for current counts)" })),
  },
  { additionalProperties: false },
);

export const eventStatsQuery = Type.Object(
  {
    group_by: Type.String({
      description: "comma-separated cloud, event_type, source; must include cloud and event_type; each once",
    }),
    from: Type.String({ format: "date-time", description: "inclusive" }),
    to: Type.String({
      format: "date-time",
      description: "exclusive; at most one year and one month after from",
    }),
    interval: Type.Union([Type.Literal("1h"), Type.Literal("1d")], { description: "UTC-aligned buckets" }),
  },
  { additionalProperties: false },
);

export const ResourceHistorySchema = Type.Object(
  {
    cloud: Type.String(),
    resource_type: Type.String(),
    resource_id: Type.String(),
    events: Type.Array(StoredEventSchema),
    intervals: Type.Array(
      Type.Object(
        {
          from: Instant,
          to: Type.Union([Instant, Type.Null()], { description: "null while open" }),
          state: Type.Union([Type.String(), Type.Null()]),
          project_id: Type.String(),
          size: Type.Union([JsonObjectSchema, Type.Null()]),
        },
        { additionalProperties: false },
      ),
      { description: "half-open spans of unchanged state, size and owner, from the one fold" },
    ),
  },
  { $id: "ResourceHistory", additionalProperties: false },
);

export const resourceHistoryQuery = Type.Object(
  {
    cloud: Name("the cloud"),
    resource_type: Name("the resource type"),
    resource_id: Name("the resource id"),
  },
  { additionalProperties: false },
);
