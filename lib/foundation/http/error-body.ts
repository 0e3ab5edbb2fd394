import { type ErrorCode, errorCodes, problemType, statusOf } from "../errors/error-code.ts";
import type { FieldError } from "../errors/svc-error.ts";

/**
 * How a server writes its errors: `problem` is RFC 9457 (`application/problem+json`, the svc
 * servers), `plain` is `{"error": "<message>"}` (netview's contract).
 */
export type ErrorStyle = "problem" | "plain";

export interface ErrorDescription {
  code: ErrorCode;
  detail?: string;
  errors?: FieldError[];
  headers?: Record<string, string>;
}

/**
 * A `Response` rather than an object, because Elysia may overwrite the content type of a returned
 * object (elysia#1964) and problem documents must keep theirs.
 */
export function errorResponse(style: ErrorStyle, error: ErrorDescription, requestId: string): Response {
  const status = statusOf(error.code);
  const headers = { "x-request-id": requestId, ...error.headers };
  if (style === "plain") {
    return Response.json(
      { error: error.detail ?? errorCodes[error.code].title.toLowerCase() },
      { status, headers },
    );
  }
  const body: Record<string, unknown> = {
    type: problemType(error.code),
    title: errorCodes[error.code].title,
    status,
  };
  if (error.detail !== undefined) body.detail = error.detail;
  if (error.errors !== undefined && error.errors.length > 0) body.errors = error.errors;
  return new Response(JSON.stringify(body), {
    status,
    headers: { ...headers, "content-type": "application/problem+json" },
  });
}
