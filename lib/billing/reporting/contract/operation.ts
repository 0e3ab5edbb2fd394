import type { TObject, TProperties, TSchema } from "@sinclair/typebox";
import type { Role } from "../auth/roles.ts";

/** The credential an operation takes (docs/reporting-api.md#authentication); `none` for probes and metrics. */
export type Security = "api" | "ingest" | "internal" | "none";

interface SuccessResponse {
  description: string;
  /** A JSON body; absent with `text` for the probes and metrics. */
  schema?: TSchema;
  text?: string;
  headers?: Record<string, string>;
}

type NoMembers = TObject<TProperties>;

/**
 * One operation of the reporting contract: the request and response shapes, declared once as TypeBox
 * schemas. The route layer validates every request against them before the handler runs, and the
 * OpenAPI document is generated from the same objects, so the served contract is the enforced one.
 */
export interface Operation<
  P extends TObject = NoMembers,
  Q extends TObject = NoMembers,
  B extends TSchema = TSchema,
> {
  method: "GET" | "POST" | "PATCH";
  /** OpenAPI form: `/api/v1/projects/{id}`. */
  path: string;
  operationId: string;
  tag: string;
  summary: string;
  description?: string;
  security: Security;
  /** The lowest API-token role that may call it (security `api` only). */
  role?: Role;
  params?: P;
  query?: Q;
  body?: B;
  /** The body is documented here but read by the handler, which answers per item (ingest). */
  bodyCheckedByHandler?: boolean;
  success: Record<number, SuccessResponse>;
  /** Problem statuses the operation answers beyond those every operation of its security answers. */
  errors: readonly number[];
}

/** Declares an operation, keeping its schema types for the handler. */
export function operation<
  P extends TObject = NoMembers,
  Q extends TObject = NoMembers,
  B extends TSchema = TSchema,
>(op: Operation<P, Q, B>): Operation<P, Q, B> {
  return op;
}

/** Elysia's path form of an OpenAPI path: `{id}` becomes `:id`. */
export function routePath(path: string): string {
  return path.replace(/\{([^}]+)\}/g, ":$1");
}
