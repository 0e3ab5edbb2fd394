import { PayloadTooLargeError, UnsupportedMediaTypeError, ValidationError } from "../errors/svc-error.ts";
import { jsonDepth } from "../json/json-depth.ts";

interface JsonBodyLimits {
  /** Bytes of body text read at most (413 beyond); unbounded when absent, as Bun's own limit applies. */
  maxBytes?: number;
  /** Levels of objects and arrays the document may nest (400 beyond), checked before anything walks it. */
  maxDepth: number;
}

/**
 * Whether a `Content-Type` names JSON: `application/json` or a `+json` type, any parameters. A request
 * that declares no type is read as JSON too (decision 119): a client that says nothing is given the
 * benefit of the doubt, while one that declares a form or text is told so rather than misread.
 */
export function isJsonMediaType(header: string | null): boolean {
  if (header === null || header.trim() === "") return true;
  const type = (header.split(";")[0] ?? "").trim().toLowerCase();
  return type === "application/json" || /^application\/[^/\s]+\+json$/.test(type);
}

/** RFC 8259 JSON is UTF-8: bytes that are not are refused, never replaced by U+FFFD behind the caller's back. */
const utf8 = new TextDecoder("utf-8", { fatal: true });

/**
 * A request's JSON body, refused in this order: a declared media type that is not JSON (415), more
 * bytes than `maxBytes` (413), bytes that are not UTF-8 (400), text that is not JSON (400), nesting
 * deeper than `maxDepth` (400). The
 * parser takes any depth without recursing and the depth is counted with its own stack, so a body
 * nested a million levels deep is a 400 before any code that recurses (serializing a dead letter,
 * a schema check) sees it.
 */
export async function readJsonBody(request: Request, limits: JsonBodyLimits): Promise<unknown> {
  const type = request.headers.get("content-type");
  if (!isJsonMediaType(type)) {
    throw new UnsupportedMediaTypeError("the body must be JSON (Content-Type: application/json)");
  }
  const { maxBytes } = limits;
  const tooLarge = () => new PayloadTooLargeError(`a body holds at most ${maxBytes} bytes`);
  if (maxBytes !== undefined && Number(request.headers.get("content-length") ?? "0") > maxBytes) {
    throw tooLarge();
  }
  const bytes = await request.arrayBuffer();
  if (maxBytes !== undefined && bytes.byteLength > maxBytes) throw tooLarge();
  let text: string;
  try {
    text = utf8.decode(bytes);
  } catch {
    throw new ValidationError("the request body is not UTF-8", [{ loc: "body", msg: "must be UTF-8 text" }]);
  }
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw new ValidationError("the request body is not JSON", [
      { loc: "body", msg: "must be a JSON document" },
    ]);
  }
  if (jsonDepth(body, limits.maxDepth) > limits.maxDepth) {
    throw new ValidationError(`the request body nests deeper than ${limits.maxDepth} levels`, [
      { loc: "body", msg: `must not nest objects and arrays more than ${limits.maxDepth} levels deep` },
    ]);
  }
  return body;
}
