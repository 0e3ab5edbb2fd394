import { type TSchema, Type } from "@sinclair/typebox";

/**
 * Shapes every part of the reporting contract shares. A schema with an `$id` becomes a named
 * component of the OpenAPI document and is referenced wherever it is used.
 */

export const Instant = Type.String({
  format: "date-time",
  description: "RFC 3339; answers are UTC with milliseconds (2026-11-01T10:00:00.000Z)",
});

export const RegistryId = Type.String({ format: "uuid", description: "a registry id (UUID)" });

/** A member of the spec's 512-character family (cloud, platform, project_id, ...). */
export const Name = (description: string) => Type.String({ minLength: 1, maxLength: 512, description });

export const FieldErrorSchema = Type.Object(
  { loc: Type.String(), msg: Type.String() },
  { $id: "FieldError", additionalProperties: false },
);

export const Problem = Type.Object(
  {
    type: Type.String({ description: "urn:svc:error:<code>; clients branch on it" }),
    title: Type.String(),
    status: Type.Integer(),
    detail: Type.Optional(Type.String()),
    errors: Type.Optional(Type.Array(FieldErrorSchema)),
  },
  { $id: "Problem", description: "RFC 9457 problem document" },
);

export const JsonObjectSchema = Type.Record(Type.String(), Type.Unknown(), {
  description: "a JSON object",
});

const maxPageLimit = 1000;
const defaultPageLimit = 100;

export const pageQuery = {
  limit: Type.Integer({
    minimum: 1,
    maximum: maxPageLimit,
    default: defaultPageLimit,
    description: "items per page",
  }),
  cursor: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 4096,
      description: "the next_cursor of the previous page; combinable with any filter",
    }),
  ),
};

/** The page envelope: `next_cursor` null on the last page. */
export function Page<T extends TSchema>(item: T, id: string) {
  return Type.Object(
    {
      items: Type.Array(item),
      next_cursor: Type.Union([Type.String(), Type.Null()], {
        description: "opaque; pass it back as cursor; null on the last page",
      }),
    },
    { $id: id, additionalProperties: false },
  );
}
