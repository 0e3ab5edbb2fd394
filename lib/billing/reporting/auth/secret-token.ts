import { createHash, randomBytes } from "node:crypto";

/** The kinds of issued secret; the prefix says to a person which scheme a leaked string belongs to. */
type SecretKind = "api" | "ingest";
const prefixes: Record<SecretKind, string> = { api: "svc_api_", ingest: "svc_ingest_" };

/** A new secret: 256 random bits, base64url, behind the kind's prefix. */
export function newSecret(kind: SecretKind): string {
  return `${prefixes[kind]}${randomBytes(32).toString("base64url")}`;
}

/**
 * What the database keeps of a secret. A plain SHA-256 is enough: the secrets are 256 random bits, so
 * there is nothing to brute-force, and a fast hash keeps per-request lookups cheap. Rejected: bcrypt or
 * argon2, which protect low-entropy passwords and would cost milliseconds per request.
 */
export function hashSecret(secret: string): string {
  return createHash("sha256").update(secret).digest("hex");
}
