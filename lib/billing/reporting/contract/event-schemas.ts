import { type Static, Type } from "@sinclair/typebox";
import { eventIdMaxLength, eventTypePattern, memberMaxLength } from "../../events/validate.ts";
import { FieldErrorSchema, Instant, JsonObjectSchema } from "./common-schemas.ts";

const member = (description: string) =>
  Type.String({ minLength: 1, maxLength: memberMaxLength, description });

export const EventSourceSchema = Type.Union([Type.Literal("collector"), Type.Literal("reconciliation")]);

const PayloadEnvelopeSchema = Type.Object(
  {
    state: Type.Optional(
      Type.Union([Type.String({ maxLength: memberMaxLength }), Type.Null()], {
        description: "the resource state at or after the event; the core sets deleted on a delete",
      }),
    ),
    size: Type.Optional(JsonObjectSchema),
    provider: Type.Optional(JsonObjectSchema),
  },
  {
    $id: "PayloadEnvelope",
    description: "members the envelope does not name survive unchanged",
    additionalProperties: true,
  },
);

const eventMembers = {
  event_id: Type.String({ minLength: 1, maxLength: eventIdMaxLength, description: "deduplication key" }),
  timestamp: Instant,
  event_type: Type.String({
    maxLength: memberMaxLength,
    pattern: eventTypePattern.source,
    description: "its parts decide the category: a create part, a delete part, otherwise an update",
  }),
  platform: member("never meta or partner"),
  cloud: member("never meta or partner"),
  resource_type: member("the resource type"),
  resource_id: member("the resource id"),
  project_id: member("the owner at or after the event (external id in the cloud)"),
};

/** An event as submitted to `POST /api/v1/events`; `source` defaults to collector. */
export const EventSchema = Type.Object(
  { ...eventMembers, source: Type.Optional(EventSourceSchema), payload: PayloadEnvelopeSchema },
  { $id: "Event", additionalProperties: false },
);

/** A stored event as the history serves it: the ten members and when it was received. */
export const StoredEventSchema = Type.Object(
  {
    ...eventMembers,
    source: EventSourceSchema,
    payload: PayloadEnvelopeSchema,
    received_at: Instant,
  },
  { $id: "StoredEvent", additionalProperties: false },
);

export const IngestResultSchema = Type.Object(
  {
    accepted: Type.Integer({ minimum: 0 }),
    duplicates: Type.Integer({ minimum: 0 }),
    rejected: Type.Array(
      Type.Object(
        {
          index: Type.Integer({ minimum: 0 }),
          event_id: Type.Union([Type.String(), Type.Null()]),
          reason: Type.String(),
          errors: Type.Array(FieldErrorSchema),
        },
        { additionalProperties: false },
      ),
    ),
  },
  { $id: "IngestResult", additionalProperties: false },
);

/** The answer of `POST /api/v1/events`, as the route states it and the collector reads it. */
export type IngestResult = Static<typeof IngestResultSchema>;
export type RejectedItem = IngestResult["rejected"][number];
