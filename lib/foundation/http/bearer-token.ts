/** Bearer credentials as every svc server reads them (reporting's tokens, netview's write token). */
import { timingSafeEqual } from "node:crypto";

const maxTokenLength = 512;

/** The token of an `Authorization: Bearer <token>` header, or null when there is none usable. */
export function bearerToken(header: string | null): string | null {
  if (header === null) return null;
  const m = /^Bearer +(\S+) *$/i.exec(header);
  const token = m?.[1];
  return token !== undefined && token.length <= maxTokenLength ? token : null;
}

/** Equality of two secrets in time that does not depend on where they differ. */
export function sameSecret(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}
