/**
 * netview's OpenAPI 3.1 document (spec: "generates its own OpenAPI 3.1 description"), built from the
 * routes' own `detail` by @elysiajs/openapi's generator, with what the generator cannot say added
 * (decision 347): the WebSocket route as the GET it is, answering 101 Switching Protocols (3.1 has no
 * `ws` method), the write token as a bearer security scheme, and a description Swagger UI renders
 * whole. The same document is the list of every route's query parameters: a parameter it does not
 * name for the route is a 400 on every route, so a route can take no parameter the document hides.
 */
import { toOpenAPISchema } from "@elysiajs/openapi";
import type { AnyElysia } from "elysia";
import { ValidationError } from "../../foundation/errors/svc-error.ts";
import { errorResponses } from "./openapi-shapes.ts";

export const specPath = "/api/v1/openapi.json";

/** The security scheme of the write token (`--write-token-file`), named by the routes that need it. */
export const writeTokenScheme = "writeToken";

/** `detail.security` of a route that needs the write token. */
export const needsWriteToken = [{ [writeTokenScheme]: [] }];

type Json = Record<string, unknown>;
type Operation = { parameters?: { name: string; in: string }[]; responses?: Json } & Json;
export type OpenApiDocument = { openapi: string; paths: Record<string, Record<string, Operation>> } & Json;

const description = [
  "Read-mostly inspection of OVN northbound and southbound databases, chassis inventory and live switch state (docs/netview.md).",
  "",
  'Errors are `{"error": "<message>"}` with the matching status. Responses from a cluster whose caches are not authoritative (reconnecting, or a snapshot loaded) carry `X-Netview-Stale: true`.',
  "",
  "Every request that changes something needs `Authorization: Bearer <token>` with the token of `--write-token-file` (the `writeToken` scheme; Authorize in the page above); `X-Netview-Actor: <name>` says who is calling, for the audit.",
  "",
  "A query parameter a route does not list is refused with 400.",
].join("\n");

/** `/a/:b/c` as the document writes it: `/a/{b}/c`. */
const templateOf = (route: string) => route.replace(/:([^/]+)/g, "{$1}");

const unknownParameter = errorResponses({ 400: "a query parameter this route does not take" });
const unknownCluster = errorResponses({ 404: "unknown cluster" });
/** What the body reader refuses on every route that takes a body (request-body.ts). */
const bodyRefusals = errorResponses({
  413: "a body larger than the route takes",
  415: "a body declared as something other than JSON",
});

/** The WebSocket upgrade, as OpenAPI 3.1 can say it: a GET whose success is 101. */
function upgradeOperation(ws: Operation): Operation {
  const errors = Object.fromEntries(
    Object.entries(ws.responses ?? {}).filter(([status]) => status !== "200"),
  );
  return {
    ...ws,
    responses: {
      101: {
        description:
          "Switching Protocols: the WebSocket stream (send `Connection: Upgrade`, `Upgrade: websocket`); messages are JSON texts",
      },
      ...errors,
    },
  };
}

/** The document of `app`'s routes (every route registered by the time it is first asked for). */
export function buildOpenApiDocument(app: AnyElysia): OpenApiDocument {
  const { paths, components } = toOpenAPISchema(
    app,
    { paths: [specPath, "/metrics"] },
    undefined,
    undefined,
    "3.1.0",
  );
  // The generator replaces a route's `detail.parameters` by its path parameters when it has any
  // (every route under /clusters/{cluster}/ among them): its query parameters are put back here.
  const declared = new Map<string, Operation["parameters"]>();
  for (const route of app.routes) {
    const parameters = (route.hooks?.detail as Operation | undefined)?.parameters;
    if (parameters !== undefined)
      declared.set(`${route.method.toLowerCase()} ${templateOf(route.path)}`, parameters);
  }
  const out: OpenApiDocument["paths"] = {};
  for (const [path, item] of Object.entries(paths as Record<string, Record<string, Operation>>)) {
    for (const [method, op] of Object.entries(item)) {
      const own = declared.get(`${method} ${path}`) ?? [];
      const given = op.parameters ?? [];
      const missing = own.filter((p) => !given.some((g) => g.name === p.name && g.in === p.in));
      if (missing.length > 0) item[method] = { ...op, parameters: [...given, ...missing] };
    }
    const { ws, ...methods } = item;
    const operations: Record<string, Operation> =
      ws === undefined ? methods : { ...methods, get: upgradeOperation(ws) };
    // queryGuard answers 400 on every route, whatever else the route refuses; a route under
    // /clusters/{cluster}/ answers 404 for a cluster the server does not serve.
    for (const op of Object.values(operations)) {
      if (op.responses?.[400] === undefined) op.responses = { ...op.responses, ...unknownParameter };
      if (path.includes("{cluster}") && op.responses?.[404] === undefined)
        op.responses = { ...op.responses, ...unknownCluster };
      if (op.requestBody !== undefined) op.responses = { ...bodyRefusals, ...op.responses };
    }
    out[path] = operations;
  }
  return {
    openapi: "3.1.0",
    info: { title: "netview", version: "1", description },
    paths: out,
    components: {
      ...(components as Json),
      securitySchemes: {
        [writeTokenScheme]: {
          type: "http",
          scheme: "bearer",
          description:
            "The token of --write-token-file: silences, alert rules, snapshots, and with --write-enabled the write routes",
        },
      },
    },
  };
}

/**
 * Refuses query parameters the document does not list for the route that matched (400 naming each
 * and what the route takes). Routes the document leaves out (its own, `/metrics`, the docs page's
 * files) are not checked.
 */
export function queryGuard(document: () => OpenApiDocument) {
  const known = new Map<string, ReadonlySet<string> | null>();
  const allowed = (method: string, route: string) => {
    const key = `${method} ${route}`;
    let names = known.get(key);
    if (names === undefined) {
      const op = document().paths[templateOf(route)]?.[method.toLowerCase()];
      names =
        op === undefined
          ? null
          : new Set((op.parameters ?? []).filter((p) => p.in === "query").map((p) => p.name));
      known.set(key, names);
    }
    return names;
  };
  return ({ request, route }: { request: Request; route: string }) => {
    const at = request.url.indexOf("?");
    if (at < 0) return;
    const names = allowed(request.method, route);
    if (names === null) return;
    const unknown = [...new Set(new URLSearchParams(request.url.slice(at + 1)).keys())].filter(
      (name) => !names.has(name),
    );
    if (unknown.length === 0) return;
    const takes = names.size === 0 ? "this route takes none" : `this route takes ${[...names].join(", ")}`;
    throw new ValidationError(
      `invalid query: ${unknown.map((name) => `${name}: unknown parameter`).join("; ")} (${takes})`,
      unknown.map((name) => ({ loc: `query.${name}`, msg: "unknown parameter" })),
    );
  };
}
