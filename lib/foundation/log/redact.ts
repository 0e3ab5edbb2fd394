import { maskSecrets } from "../config/secret.ts";

/** Member names whose values never reach a log or a dump, at any depth, in any case. */
const secretName = /password|token|secret|connection_info/i;
export const redactedMark = "[redacted]";

/**
 * `scheme://user:password@host` → `scheme://user:[redacted]@host`, wherever it stands in a string, and
 * every secret the process read masked whatever its shape (decision 18).
 */
export function redactUrlCredentials(text: string): string {
  return maskSecrets(text.replace(/([a-z][a-z0-9+.-]*:\/\/[^\s:/@]*):[^\s@/]*@/gi, `$1:${redactedMark}@`));
}

export function isSecretName(name: string): boolean {
  return secretName.test(name);
}

/**
 * A copy of `value` with every member whose name looks secret replaced by `[redacted]`, and URL
 * credentials masked in strings. Errors keep their name, message and cause (also redacted). Cycles are
 * cut rather than followed.
 */
export function redact(value: unknown, seen: WeakSet<object> = new WeakSet()): unknown {
  if (typeof value === "string") return redactUrlCredentials(value);
  if (value === null || typeof value !== "object") return value;
  if (seen.has(value)) return "[circular]";
  seen.add(value);
  if (typeof (value as { toJSON?: unknown }).toJSON === "function" && !(value instanceof Error)) {
    return redact((value as { toJSON(): unknown }).toJSON(), seen);
  }
  if (Array.isArray(value)) return value.map((v) => redact(v, seen));
  const out: Record<string, unknown> = {};
  if (value instanceof Error) {
    out.type = value.name;
    out.message = redactUrlCredentials(value.message);
    if (value.stack) out.stack = redactUrlCredentials(value.stack);
    if (value.cause !== undefined) out.cause = redact(value.cause, seen);
  }
  for (const [k, v] of Object.entries(value)) {
    out[k] = isSecretName(k) ? redactedMark : redact(v, seen);
  }
  return out;
}
