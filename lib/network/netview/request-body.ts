/**
 * Every body netview takes, read by the foundation's JSON body reader (decision 349): declared JSON
 * (415 otherwise), UTF-8 (400), at most `maxBytes` (413; a snapshot import, being a whole NB and SB,
 * up to Bun's own request limit) and `maxDepth` levels of nesting (400), so no route can forget a
 * bound and none meets a body nested deeper than the code that walks it. An empty body is `null`.
 */
import { readJsonBody } from "../../foundation/http/json-body.ts";

export const bodyLimits = {
  /** A plan of 1,000 operations is well under a megabyte. */
  maxBytes: 4 * 1024 * 1024,
  /** Bun's default `maxRequestBodySize`: a snapshot document of a large cloud runs to tens of MB. */
  importMaxBytes: 128 * 1024 * 1024,
  /** A snapshot row sits 6 levels down; a write body's values 5. */
  maxDepth: 32,
} as const;

const importPath = "/api/v1/snapshots/import";

/** The parse hook of the netview app: the request's body as JSON, or null when it has none. */
export async function parseNetviewBody({ request }: { request: Request }): Promise<unknown> {
  if (request.body === null) return null;
  const path = new URL(request.url).pathname;
  const limits = {
    maxBytes: path === importPath ? bodyLimits.importMaxBytes : bodyLimits.maxBytes,
    maxDepth: bodyLimits.maxDepth,
  };
  // A declared length past the bound is refused before anything is read.
  if (Number(request.headers.get("content-length") ?? "0") > limits.maxBytes)
    return readJsonBody(request, limits);
  const bytes = await request.arrayBuffer();
  if (bytes.byteLength === 0) return null;
  const { method, headers } = request;
  return readJsonBody(new Request(request.url, { method, headers, body: bytes }), limits);
}
