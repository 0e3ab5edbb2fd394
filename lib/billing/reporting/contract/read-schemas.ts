import { Type } from "@sinclair/typebox";
import { FieldErrorSchema, Instant, JsonObjectSchema, Name, Page, pageQuery } from "./common-schemas.ts";
import { EventSourceSchema, StoredEventSchema } from "./event-schemas.ts";

const ResourceSchema = Type.Object(
  {
    cloud: Type.String(),
    resource_type: Type.String(),
    resource_id: Type.String(),
    platform: Type.String(),
    project_id: Type.String({ description: "the owner now (external id in the cloud)" }),
    state: Type.Union([Type.String(), Type.Null()]),
    size: Type.Union([JsonObjectSchema, Type.Null()]),
    created_at: Type.Union([Instant, Type.Null()]),
    deleted_at: Type.Union([Instant, Type.Null()], { description: "set once deleted; the row is kept" }),
    last_event_at: Instant,
  },
  { $id: "Resource", additionalProperties: false },
);

const RejectedEventSchema = Type.Object(
  {
    id: Type.Integer(),
    received_at: Instant,
    reason: Type.String(),
    errors: Type.Array(FieldErrorSchema),
    raw_body: Type.String({ description: "the item as submitted (JSON text)" }),
    event_id: Type.Union([Type.String(), Type.Null()]),
    item_index: Type.Integer({ minimum: 0 }),
    request_id: Type.Union([Type.String(), Type.Null()]),
  },
  { $id: "RejectedEvent", additionalProperties: false },
);

export const EventListSchema = Page(StoredEventSchema, "EventList");
export const ResourceListSchema = Page(ResourceSchema, "ResourceList");
export const DeadLetterListSchema = Page(RejectedEventSchema, "DeadLetterList");

const from = Type.Optional(Type.String({ format: "date-time", description: "inclusive" }));
const to = Type.Optional(Type.String({ format: "date-time", description: "exclusive" }));

export const ResourceStatusSchema = Type.Union(
  [Type.Literal("active"), Type.Literal("deleted"), Type.Literal("all")],
  {
    default: "active",
    description: "active (not deleted, the default), deleted, or all; independent of state",
  },
);

export const listEventsQuery = Type.Object(
  {
    cloud: Type.Optional(Name("only this cloud")),
    platform: Type.Optional(Name("only this platform")),
    project_id: Type.Optional(Name("only events naming this project (a project outside the scope is 403)")),
    resource_type: Type.Optional(Name("only this resource type")),
    event_type: Type.Optional(Name("only this event type")),
    source: Type.Optional(EventSourceSchema),
    from,
    to,
    ...pageQuery,
  },
  { additionalProperties: false },
);

export const listResourcesQuery = Type.Object(
  {
    cloud: Type.Optional(Name("only this cloud")),
    platform: Type.Optional(Name("only this platform")),
    project_id: Type.Optional(Name("only resources this project owns now (outside the scope is 403)")),
    resource_type: Type.Optional(Name("only this resource type")),
    state: Type.Optional(Name("exact state")),
    status: ResourceStatusSchema,
    ...pageQuery,
  },
  { additionalProperties: false },
);

export const listRejectedQuery = Type.Object({ from, to, ...pageQuery }, { additionalProperties: false });
