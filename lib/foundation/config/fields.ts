import { readFileSync } from "node:fs";
import { isAbsolute } from "node:path";
import { Secret } from "./secret.ts";

export type Env = Readonly<Record<string, string | undefined>>;

/** Raised by a field's parser; the message says what the variable takes. */
export class FieldRefusal extends Error {}

/** What happens when a variable is unset: a default, a refusal, or `undefined` in the config. */
export type Presence<T> = { default: T } | { required: true } | { optional: true };

/**
 * One environment variable: how to read it. `read` returns `undefined` when the variable is unset;
 * `readConfig` then applies `presence`. `P` keeps the presence in the type, so an optional field's
 * value is typed `T | undefined` and the others `T`.
 */
export interface Field<T, P extends Presence<T> = Presence<T>> {
  variable: string;
  read(env: Env): T | undefined;
  presence: P;
}

/** The raw value; a variable set to the empty string counts as unset (the `FOO=` idiom of env files). */
function raw(env: Env, variable: string): string | undefined {
  const v = env[variable];
  return v === undefined || v === "" ? undefined : v;
}

function quote(value: string): string {
  return value.length > 80 ? `${JSON.stringify(value.slice(0, 80))}...` : JSON.stringify(value);
}

function field<T, P extends Presence<T>>(
  variable: string,
  presence: P,
  parse: (value: string) => T,
): Field<T, P> {
  return {
    variable,
    presence,
    read(env) {
      const value = raw(env, variable);
      return value === undefined ? undefined : parse(value);
    },
  };
}

export function integer<const P extends Presence<number>>(
  variable: string,
  presence: P,
  bounds: { min?: number; max?: number } = {},
): Field<number, P> {
  const { min = Number.MIN_SAFE_INTEGER, max = Number.MAX_SAFE_INTEGER } = bounds;
  const range =
    bounds.min !== undefined && bounds.max !== undefined
      ? ` from ${min} to ${max}`
      : bounds.min !== undefined
        ? min === 1
          ? " (positive)"
          : ` of at least ${min}`
        : bounds.max !== undefined
          ? ` of at most ${max}`
          : "";
  return field(variable, presence, (value) => {
    const n = /^[+-]?\d+$/.test(value.trim()) ? Number(value.trim()) : Number.NaN;
    if (!Number.isSafeInteger(n) || n < min || n > max) {
      throw new FieldRefusal(`${variable} takes an integer${range}, got ${quote(value)}`);
    }
    return n;
  });
}

const truthy = new Set(["true", "1", "yes", "on"]);
const falsy = new Set(["false", "0", "no", "off"]);

export function boolean<const P extends Presence<boolean>>(variable: string, presence: P): Field<boolean, P> {
  return field(variable, presence, (value) => {
    const v = value.trim().toLowerCase();
    if (truthy.has(v)) return true;
    if (falsy.has(v)) return false;
    throw new FieldRefusal(`${variable} takes true or false, got ${quote(value)}`);
  });
}

/** One of a fixed set of values, compared exactly (case-sensitive, as the spec's enums are). */
export function oneOf<const V extends string, const P extends Presence<V>>(
  variable: string,
  values: readonly V[],
  presence: P,
): Field<V, P> {
  return field(variable, presence, (value) => {
    if ((values as readonly string[]).includes(value)) return value as V;
    throw new FieldRefusal(`${variable} takes exactly one of ${values.join(", ")}, got ${quote(value)}`);
  });
}

export function text<const P extends Presence<string>>(
  variable: string,
  presence: P,
  rules: { maxLength?: number; pattern?: RegExp; describe?: string } = {},
): Field<string, P> {
  return field(variable, presence, (value) => {
    if (rules.maxLength !== undefined && value.length > rules.maxLength) {
      throw new FieldRefusal(`${variable} takes at most ${rules.maxLength} characters`);
    }
    if (rules.pattern && !rules.pattern.test(value)) {
      throw new FieldRefusal(
        `${variable} takes ${rules.describe ?? `a value matching ${rules.pattern}`}, got ${quote(value)}`,
      );
    }
    return value;
  });
}

/**
 * A comma-separated list; entries are trimmed. The empty string is the empty list (unlike other kinds,
 * where empty means unset); an empty entry anywhere else (`a,,b`, `a,`) is refused.
 */
export function commaList<const P extends Presence<string[]>>(
  variable: string,
  presence: P,
  check: (entry: string) => string | null = () => null,
): Field<string[], P> {
  return {
    variable,
    presence,
    read(env) {
      const value = env[variable];
      if (value === undefined) return undefined;
      if (value.trim() === "") return [];
      const entries = value.split(",").map((e) => e.trim());
      if (entries.some((e) => e === "")) {
        throw new FieldRefusal(
          `${variable} takes a comma-separated list without empty entries, got ${quote(value)}`,
        );
      }
      for (const entry of entries) {
        const complaint = check(entry);
        if (complaint !== null) throw new FieldRefusal(`${variable}: ${complaint}`);
      }
      return [...new Set(entries)];
    },
  };
}

export function path<const P extends Presence<string>>(
  variable: string,
  presence: P,
  rules: { absolute?: boolean } = {},
): Field<string, P> {
  return field(variable, presence, (value) => {
    if (value.includes("\0")) throw new FieldRefusal(`${variable} takes a file path`);
    if (rules.absolute && !isAbsolute(value)) {
      throw new FieldRefusal(`${variable} takes an absolute path, got ${quote(value)}`);
    }
    return value;
  });
}

interface UrlRules {
  /** Allowed schemes without the colon, e.g. `["https"]`. */
  schemes: readonly string[];
  requireHost?: boolean;
  noUserinfo?: boolean;
  noQuery?: boolean;
  noFragment?: boolean;
}

/** A PostgreSQL URL as postgres.js reads it; the host may be given as `?host=` (a socket directory). */
export const postgresUrl: UrlRules = { schemes: ["postgres", "postgresql"], requireHost: false };
/** An AMQP URL as @cloudamqp/amqp-client reads it. */
export const amqpUrl: UrlRules = { schemes: ["amqp", "amqps"] };

/** Checks an absolute URL against scheme rules; returns a complaint or null. Never quotes userinfo. */
export function urlComplaint(value: string, rules: UrlRules): string | null {
  const absolute = `an absolute URL with scheme ${rules.schemes.join(" or ")}`;
  // Every URL a setting takes is written `scheme://...`; `postgres:user:pw@host` parses, as an opaque path.
  if (!/^[a-z][a-z0-9+.-]*:\/\//i.test(value)) return absolute;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return absolute;
  }
  const scheme = url.protocol.replace(/:$/, "");
  if (!rules.schemes.includes(scheme))
    return `a URL with scheme ${rules.schemes.join(" or ")}, not ${scheme}`;
  if ((rules.requireHost ?? true) && url.hostname === "") return "a URL with a host";
  if (rules.noUserinfo && (url.username !== "" || url.password !== ""))
    return "a URL without user or password";
  if (rules.noQuery && url.search !== "") return "a URL without a query";
  if (rules.noFragment && url.hash !== "") return "a URL without a fragment";
  return null;
}

/**
 * The URLs of a setting that names several servers of one service (the nodes of a RabbitMQ cluster),
 * comma-separated, each in full: a comma inside one (a password) is written `%2C`.
 */
export function splitUrlList(value: string): string[] {
  return value.split(",").map((entry) => entry.trim());
}

/** `urlComplaint` for a comma-separated list: each entry checked, the first bad one named by its place. */
export function urlListComplaint(value: string, rules: UrlRules): string | null {
  const entries = splitUrlList(value);
  for (const [index, entry] of entries.entries()) {
    const complaint = urlComplaint(entry, rules);
    if (complaint === null) continue;
    return entries.length === 1 ? complaint : `${complaint} (entry ${index + 1} of the comma-separated list)`;
  }
  return null;
}

export function url<const P extends Presence<URL>>(
  variable: string,
  presence: P,
  rules: UrlRules,
): Field<URL, P> {
  return field(variable, presence, (value) => {
    const complaint = urlComplaint(value, rules);
    // The value is not quoted: a URL may carry credentials.
    if (complaint !== null) throw new FieldRefusal(`${variable} takes ${complaint}`);
    return new URL(value);
  });
}

/**
 * A secret given inline in `NAME` or through a file named by `NAME_FILE`: one trailing newline of the
 * file is trimmed, an empty file is refused, and setting both is refused. With `url`, the value must be
 * such a URL (a connection string holds its password): checked here, so a typo such as
 * `postgres//user:pw@host` is refused as a setting rather than handed to a driver that quotes it.
 * With `urlList`, a comma-separated list of such URLs (`splitUrlList`). Refusals never quote the value.
 */
export function secret<const P extends { required: true } | { optional: true }>(
  variable: string,
  presence: P,
  rules: { url?: UrlRules; urlList?: boolean } = {},
): Field<Secret, P> {
  const fileVariable = `${variable}_FILE`;
  return {
    variable,
    presence,
    read(env) {
      const inline = raw(env, variable);
      const file = raw(env, fileVariable);
      if (inline !== undefined && file !== undefined) {
        throw new FieldRefusal(`set ${variable} or ${fileVariable}, not both`);
      }
      const checked = (value: string) => {
        // Made first, so the value is masked in every log line even if it is refused here.
        const secret = new Secret(value);
        const complaint =
          rules.url === undefined
            ? null
            : rules.urlList === true
              ? urlListComplaint(value, rules.url)
              : urlComplaint(value, rules.url);
        if (complaint !== null) throw new FieldRefusal(`${variable} takes ${complaint}`);
        return secret;
      };
      if (inline !== undefined) return checked(inline);
      if (file === undefined) return undefined;
      let content: string;
      try {
        content = readFileSync(file, "utf8");
      } catch (cause) {
        const code = (cause as NodeJS.ErrnoException).code ?? "unreadable";
        throw new FieldRefusal(`${fileVariable} names a file that cannot be read (${code}): ${quote(file)}`);
      }
      const value = content.replace(/\r?\n$/, "");
      if (value === "") throw new FieldRefusal(`${fileVariable} names an empty file: ${quote(file)}`);
      return checked(value);
    },
  };
}

/** A variable that must not be set, for settings the deployment must not rely on yet. */
export function mustBeUnset(variable: string, why: string): Field<undefined, { optional: true }> {
  return {
    variable,
    presence: { optional: true },
    read(env) {
      if (raw(env, variable) !== undefined) throw new FieldRefusal(`${variable} must be unset: ${why}`);
      return undefined;
    },
  };
}
