import { Elysia, ValidationError as ElysiaValidationError } from "elysia";
import { SvcError } from "../errors/svc-error.ts";
import type { Logger } from "../log/logger.ts";
import { type ErrorDescription, type ErrorStyle, errorResponse } from "./error-body.ts";
import { requestIdFrom } from "./request-id.ts";
import { methodsFor } from "./route-methods.ts";
import { describeIssue, type SchemaIssue } from "./validation-message.ts";

interface AppOptions {
  service: string;
  logger: Logger;
  errorStyle?: ErrorStyle;
}

type ValidationIssue = Partial<SchemaIssue> & { path?: string; summary?: string };

/** Elysia's own validation failures in our problem format, each naming the member and what it accepts. */
function describeValidation(error: ElysiaValidationError): ErrorDescription {
  const issues = (error.all as ValidationIssue[]).map((issue) => {
    const pointer = (issue.path ?? "").split("/").filter(Boolean).join(".");
    const { type, schema } = issue;
    return {
      loc: pointer === "" ? error.type : `${error.type}.${pointer}`,
      msg:
        type !== undefined && schema !== undefined
          ? describeIssue({ type, schema, value: issue.value, message: issue.message ?? "" })
          : (issue.summary ?? issue.message ?? "invalid"),
    };
  });
  return {
    code: "validation",
    detail: `the request ${error.type} does not match the contract`,
    errors: issues,
  };
}

/**
 * The base every svc HTTP server is built on: an `X-Request-ID` on every response (adopted from the
 * caller or generated), errors rendered once from the closed error-code list, 404 for unknown paths
 * and 405 with `Allow` for a known path asked with another method, and one JSON access-log line per
 * request. Unexpected failures answer 500 `internal` with no detail; what failed reaches only the log.
 */
export function createApp(options: AppOptions) {
  const style = options.errorStyle ?? "problem";
  const log = options.logger;
  const requestIds = new WeakMap<Request, string>();
  const started = new WeakMap<Request, number>();
  let allowed: { count: number; lookup: (path: string) => string[] } | null = null;

  const describeError = (
    thrown: unknown,
    code: string | number,
    request: Request,
    path: string,
    id: string,
  ): ErrorDescription => {
    // A body reader in a parse hook refuses with our own error, which Elysia wraps in its ParseError.
    const error =
      code === "PARSE" && thrown instanceof Error && thrown.cause instanceof SvcError ? thrown.cause : thrown;
    if (error instanceof SvcError) {
      if (error.code === "internal" || error.code === "unavailable") {
        log.error({ err: error, request_id: id }, error.message);
      }
      return { code: error.code, detail: error.message, errors: error.errors };
    }
    if (error instanceof ElysiaValidationError) return describeValidation(error);
    if (code === "PARSE") return { code: "validation", detail: "the request body cannot be parsed" };
    if (code === "NOT_FOUND") {
      const routes = app.routes;
      if (allowed === null || allowed.count !== routes.length) {
        allowed = { count: routes.length, lookup: methodsFor(routes) };
      }
      const methods = allowed.lookup(path);
      if (methods.length > 0 && !methods.includes("*")) {
        return {
          code: "method_not_allowed",
          detail: `${request.method} is not served here`,
          headers: { allow: methods.join(", ") },
        };
      }
      return { code: "not_found", detail: style === "plain" ? "not found" : `no route for ${path}` };
    }
    log.error({ err: error, request_id: id, method: request.method, path }, "request failed");
    return { code: "internal", detail: "the server failed; the request id names it in the log" };
  };

  const app = new Elysia({ name: `${options.service}-base` })
    .onRequest(({ request, set }) => {
      const id = requestIdFrom(request.headers.get("x-request-id"));
      requestIds.set(request, id);
      started.set(request, performance.now());
      set.headers["x-request-id"] = id;
    })
    .onError({ as: "global" }, ({ request, error, code, path, set }) => {
      const id = requestIds.get(request) ?? requestIdFrom(null);
      const response = errorResponse(style, describeError(error, code, request, path, id), id);
      // A returned Response does not update `set.status`, which the access log reads.
      set.status = response.status;
      return response;
    })
    .onAfterResponse({ as: "global" }, ({ request, set, path }) => {
      const begun = started.get(request);
      log.info(
        {
          request_id: requestIds.get(request),
          method: request.method,
          path,
          status: typeof set.status === "number" ? set.status : undefined,
          duration_ms: begun === undefined ? undefined : Math.round((performance.now() - begun) * 10) / 10,
        },
        "request",
      );
    });
  return app;
}
