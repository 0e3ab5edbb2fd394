/**
 * The credential of every request that changes something (decisions 355, 362): one bearer token,
 * read from the file `--write-token-file` names (the `_FILE` convention: never on a command line or
 * in the environment of a process listing), compared in constant time.
 */
import { Secret } from "../../../foundation/config/secret.ts";
import { ForbiddenError, UnauthorizedError } from "../../../foundation/errors/svc-error.ts";
import { bearerToken, sameSecret } from "../../../foundation/http/bearer-token.ts";
import type { Actor } from "./audit-store.ts";

const minTokenLength = 32;

/** The token in the file (surrounding whitespace dropped); throws RangeError completing "--write-token-file …". */
export function readWriteToken(path: string, readFile: (path: string) => string): Secret {
  let text: string;
  try {
    text = readFile(path);
  } catch {
    throw new RangeError(`--write-token-file ${path}: cannot be read`);
  }
  const token = text.trim();
  if (token.length < minTokenLength || /\s/.test(token)) {
    throw new RangeError(
      `--write-token-file ${path}: must hold one token of at least ${minTokenLength} characters without spaces (for example: openssl rand -hex 32)`,
    );
  }
  return new Secret(token);
}

/** Refuses a request without the token (401); the token never appears in a message. */
function checkWriteToken(request: Request, token: Secret): void {
  const given = bearerToken(request.headers.get("authorization"));
  if (given === null) throw new UnauthorizedError("this route needs Authorization: Bearer <write token>");
  if (!sameSecret(given, token.reveal()))
    throw new UnauthorizedError("the bearer token is not the write token");
}

/** Elysia's request context, as far as the guard reads it. */
interface GuardContext {
  request: Request;
  server: { requestIP(request: Request): { address: string } | null } | null;
  set: { headers: Record<string, string | number> };
}

/** Who is calling, once the token matched: recorded in the audit, and as a silence's author. */
export type Guard = (context: GuardContext) => Actor;

const actorText = /^[\x21-\x7e][\x20-\x7e]{0,99}$/;

/**
 * The check a changing route runs first: 403 with `refusal` when the server holds no token (nothing
 * could ever be accepted), else 401 with a Bearer challenge unless the request carries the token.
 */
export function requireToken(context: GuardContext, token: Secret | undefined, refusal: string): Actor {
  if (token === undefined) throw new ForbiddenError(refusal);
  try {
    checkWriteToken(context.request, token);
  } catch (error) {
    context.set.headers["www-authenticate"] = 'Bearer realm="netview-write"';
    throw error;
  }
  const declared = context.request.headers.get("x-netview-actor");
  return {
    actor: declared !== null && actorText.test(declared) ? declared : "anonymous",
    token: tokenFingerprint(token),
    remote_addr: context.server?.requestIP(context.request)?.address ?? null,
    request_id: String(context.set.headers["x-request-id"] ?? "") || null,
  };
}

/** The guard of the routes that change netview's own state: alert rules, silences, snapshots. */
export function stateChangeGuard(token: Secret | undefined): Guard {
  return (context) =>
    requireToken(
      context,
      token,
      "changes are disabled: the server runs without --write-token-file (reads need no token)",
    );
}

/** A short, stable name for the token in the audit, from which the token cannot be recovered. */
function tokenFingerprint(token: Secret): string {
  return new Bun.CryptoHasher("sha256").update(token.reveal()).digest("hex").slice(0, 12);
}
