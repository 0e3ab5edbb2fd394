/**
 * One request through a netview app as its tests send it, and the answer read back whole: the body
 * parsed when it is JSON (its text otherwise, undefined when empty). Every route test's client, so
 * that a new header or a change in how answers are read is made once. Not imported by any program.
 */
import type { netviewApp } from "../../lib/network/netview/netview-app.ts";
import { testWriteToken } from "./test-support.ts";

export type NetviewApp = ReturnType<typeof netviewApp>;

export interface Answer<B = unknown> {
  status: number;
  headers: Headers;
  text: string;
  body: B;
  /** The answer came from a loaded snapshot (`x-netview-stale`). */
  stale: boolean;
}

export interface SendOptions {
  /** Sent as JSON; a string or bytes are sent as they are. */
  body?: unknown;
  /** The body's content type (default application/json). */
  type?: string;
  /** The bearer token (default the tests' write token); null sends none. */
  auth?: string | null;
  /** The actor the audit records (default alice@ops). */
  actor?: string;
}

export async function send(
  app: NetviewApp,
  method: string,
  path: string,
  options: SendOptions = {},
): Promise<Answer> {
  const headers: Record<string, string> = { "x-netview-actor": options.actor ?? "alice@ops" };
  const auth = options.auth === undefined ? testWriteToken : options.auth;
  if (auth !== null) headers.authorization = `Bearer ${auth}`;
  const raw = options.body;
  const body =
    raw === undefined || typeof raw === "string" || raw instanceof Uint8Array ? raw : JSON.stringify(raw);
  if (body !== undefined) headers["content-type"] = options.type ?? "application/json";
  const res = await app.handle(
    new Request(`http://localhost${path}`, { method, headers, ...(body === undefined ? {} : { body }) }),
  );
  const text = await res.text();
  let parsed: unknown = text;
  try {
    parsed = text === "" ? undefined : JSON.parse(text);
  } catch {
    // A text answer (ovn-trace's formats, the metrics exposition, the docs page).
  }
  return {
    status: res.status,
    headers: res.headers,
    text,
    body: parsed,
    stale: res.headers.get("x-netview-stale") === "true",
  };
}
