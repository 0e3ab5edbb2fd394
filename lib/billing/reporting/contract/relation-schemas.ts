import { Type } from "@sinclair/typebox";
import { Instant, Page, pageQuery, RegistryId } from "./common-schemas.ts";

const RelationType = Type.String({
  pattern: "^[a-z0-9_]{1,64}$",
  description: "infrastructure_tenant attributes cost; managed_by and member_of reach a virtual project",
});

const RelationMetadata = Type.Record(Type.String(), Type.Unknown(), {
  description:
    "free-form; pricing_adjustments, when present, is an array of PricingAdjustment (1 to 64), fixed for the relation's lifetime",
});

export const RelationSchema = Type.Object(
  {
    id: RegistryId,
    source_id: RegistryId,
    target_id: RegistryId,
    relation_type: Type.String(),
    metadata: Type.Record(Type.String(), Type.Unknown()),
    valid_from: Instant,
    valid_to: Type.Union([Instant, Type.Null()], { description: "null while in force without an end" }),
    created_at: Instant,
  },
  { $id: "Relation", additionalProperties: false },
);

export const RelationListSchema = Page(RelationSchema, "RelationList");

export const CreateRelationSchema = Type.Object(
  {
    target_id: RegistryId,
    relation_type: RelationType,
    metadata: Type.Optional(RelationMetadata),
    valid_from: Type.Optional(Type.String({ format: "date-time", description: "default: now" })),
  },
  { $id: "CreateRelation", additionalProperties: false },
);

export const UpdateRelationSchema = Type.Object(
  {
    target_id: Type.Optional(RegistryId),
    relation_type: Type.Optional(RelationType),
    metadata: Type.Optional(RelationMetadata),
    valid_to: Type.Optional(Type.String({ format: "date-time", description: "closes the relation" })),
  },
  {
    $id: "UpdateRelation",
    additionalProperties: false,
    description:
      "metadata replaces the stored metadata; target_id, relation_type and pricing_adjustments may only be sent back unchanged (409 otherwise); valid_to closes the relation, which is never removed",
  },
);

export const relationParams = Type.Object(
  { id: RegistryId, relation_id: RegistryId },
  { additionalProperties: false },
);

export const listRelationsQuery = Type.Object(
  {
    direction: Type.Optional(
      Type.Union([Type.Literal("outgoing"), Type.Literal("incoming")], {
        description: "outgoing (default): the project is the source; incoming: the target",
      }),
    ),
    relation_type: Type.Optional(Type.String({ pattern: "^[a-z0-9_]{1,64}$" })),
    ...pageQuery,
  },
  { additionalProperties: false },
);
