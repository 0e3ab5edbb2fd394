import { Type } from "@sinclair/typebox";
import {
  adjustmentTypes,
  maxAdjustments,
  maxDescriptionLength,
  ratePattern,
  scopePattern,
} from "../../pricing/pricing-adjustments.ts";
import { Instant, JsonObjectSchema, Name, Page, pageQuery, RegistryId } from "./common-schemas.ts";

export const ProjectSchema = Type.Object(
  {
    id: RegistryId,
    platform: Type.String(),
    cloud: Type.String(),
    external_id: Type.String(),
    name: Type.Optional(
      Type.Union([Type.String(), Type.Null()], { description: "served to role read_all and above" }),
    ),
    metadata: Type.Optional(
      Type.Record(Type.String(), Type.Unknown(), { description: "served to role read_all and above" }),
    ),
    created_at: Instant,
  },
  { $id: "Project", additionalProperties: false },
);

export const ProjectListSchema = Page(ProjectSchema, "ProjectList");

export const CreateProjectSchema = Type.Object(
  {
    platform: Name("the platform; meta and partner make a virtual project whose cloud is the same literal"),
    cloud: Name("the cloud (installation); meta or partner only for those platforms"),
    external_id: Name("the project's id in its cloud; unique within the cloud"),
    name: Type.Optional(Type.Union([Type.String({ maxLength: 512 }), Type.Null()])),
    metadata: Type.Optional(JsonObjectSchema),
  },
  { $id: "CreateProject", additionalProperties: false },
);

export const listProjectsQuery = Type.Object(
  {
    platform: Type.Optional(Name("only this platform")),
    cloud: Type.Optional(Name("only this cloud")),
    external_id: Type.Optional(Name("only this external id (one per cloud)")),
    ...pageQuery,
  },
  { additionalProperties: false },
);

export const projectIdParams = Type.Object({ id: RegistryId }, { additionalProperties: false });

/** Documentation of one `pricing_adjustments` element; the rules are checked by lib/billing/pricing. */
export const PricingAdjustmentSchema = Type.Object(
  {
    type: Type.Union(adjustmentTypes.map((t) => Type.Literal(t))),
    rate: Type.String({ pattern: ratePattern.source }),
    scope: Type.String({ pattern: scopePattern.source }),
    description: Type.Optional(Type.String({ maxLength: maxDescriptionLength })),
  },
  {
    $id: "PricingAdjustment",
    additionalProperties: false,
    description: `An element of metadata.pricing_adjustments (1 to ${maxAdjustments} per relation). A violation is answered 422 with one error per violation at body.metadata.pricing_adjustments.<index>.<member>.`,
  },
);
