import type { Static, TObject, TSchema } from "@sinclair/typebox";
import { Elysia } from "elysia";
import { readJsonBody } from "../../../foundation/http/json-body.ts";
import { readPart, readQuery } from "../../../foundation/http/request-input.ts";
import type { Authenticator } from "../auth/authenticator.ts";
import type { ApiPrincipal } from "../auth/credential-lookup.ts";
import { describeDatabaseFailure } from "../database-failure.ts";
import { type Operation, routePath } from "./operation.ts";

/** What a handler sees: the caller and the request parts, already checked against the contract. */
interface HandlerInput<P, Q, B> {
  /** The API token's principal; null when auth is disabled or the operation takes no API token. */
  principal: ApiPrincipal | null;
  params: P;
  query: Q;
  body: B;
  request: Request;
}

/** An operation with its handler; the handler returns a JSON value (200) or a whole Response. */
export interface Route {
  op: Operation<TObject, TObject, TSchema>;
  run(input: HandlerInput<unknown, unknown, unknown>): Promise<unknown>;
}

export function route<P extends TObject, Q extends TObject, B extends TSchema>(
  op: Operation<P, Q, B>,
  handle: (input: HandlerInput<Static<P>, Static<Q>, Static<B>>) => Promise<unknown>,
): Route {
  return {
    op: op as unknown as Operation<TObject, TObject, TSchema>,
    run: (input) => handle(input as HandlerInput<Static<P>, Static<Q>, Static<B>>),
  };
}

/** The largest JSON body a registry write reads; a project or relation is a few kilobytes. */
export const maxBodyBytes = 1024 * 1024;
/** Levels a registry body may nest: metadata is free-form, but never this deep (decision 119). */
export const maxBodyDepth = 64;

/**
 * An Elysia plugin serving `routes`. For each request, in this order: the credential of the
 * operation's scheme (401, then 403 below its role), the path, the query and the body against the
 * contract (400 with `errors`), then the handler. Authenticating first means a caller without a
 * credential learns nothing about the contract's rules from the refusals. A database that cannot be
 * reached is 503.
 */
export function operationRoutes(name: string, auth: Authenticator, routes: readonly Route[]) {
  let app = new Elysia({ name });
  for (const { op, run } of routes) {
    const handler = async ({ request, params }: { request: Request; params: Record<string, string> }) => {
      let principal: ApiPrincipal | null = null;
      if (op.security === "api") principal = await auth.api(request, op.role ?? "reader");
      else if (op.security === "internal") auth.internal(request);
      const input: HandlerInput<unknown, unknown, unknown> = {
        principal,
        params: op.params === undefined ? {} : readPart(op.params, params, "path"),
        query: op.query === undefined ? {} : readQuery(op.query, new URL(request.url)),
        body: undefined,
        request,
      };
      if (op.body !== undefined) {
        const body = await readJsonBody(request, { maxBytes: maxBodyBytes, maxDepth: maxBodyDepth });
        input.body = op.bodyCheckedByHandler ? body : readPart(op.body, body, "body");
      }
      try {
        return await run(input);
      } catch (error) {
        throw describeDatabaseFailure(error);
      }
    };
    const path = routePath(op.path);
    const options = { parse: "none" as const };
    if (op.method === "GET") app = app.get(path, handler, options);
    else if (op.method === "POST") app = app.post(path, handler, options);
    else app = app.patch(path, handler, options);
  }
  return app;
}
