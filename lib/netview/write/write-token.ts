/**
 * The write routes' credential (decision 355): one bearer token, read from the file
 * `--write-token-file` names (the `_FILE` convention: never on a command line or in the environment
 * of a process listing), compared in constant time.
 */
import { Secret } from "../../config/secret.ts";
import { UnauthorizedError } from "../../errors/svc-error.ts";
import { bearerToken, sameSecret } from "../../http/bearer-token.ts";

export const minTokenLength = 32;

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
export function checkWriteToken(request: Request, token: Secret): void {
  const given = bearerToken(request.headers.get("authorization"));
  if (given === null)
    throw new UnauthorizedError("the write routes need Authorization: Bearer <write token>");
  if (!sameSecret(given, token.reveal()))
    throw new UnauthorizedError("the bearer token is not the write token");
}

/** A short, stable name for the token in the audit, from which the token cannot be recovered. */
export function tokenFingerprint(token: Secret): string {
  return new Bun.CryptoHasher("sha256").update(token.reveal()).digest("hex").slice(0, 12);
}
