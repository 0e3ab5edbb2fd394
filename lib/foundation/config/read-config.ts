import { ConfigError, type ConfigProblem } from "./config-error.ts";
import { type Env, type Field, FieldRefusal, type Presence } from "./fields.ts";

type FieldValue<F> =
  F extends Field<infer T, infer P> ? (P extends { optional: true } ? T | undefined : T) : never;

type AnyField = Field<unknown, Presence<unknown>>;

export type ConfigOf<S extends Record<string, AnyField>> = {
  readonly [K in keyof S]: FieldValue<S[K]>;
};

/**
 * Reads every field of `spec` from `env` and either returns them all, typed, or throws one
 * ConfigError naming every refused variable, so a program refuses its whole configuration before it
 * binds a port or dials anything. `check` adds rules that join several variables.
 */
export function readConfig<S extends Record<string, AnyField>>(
  env: Env,
  spec: S,
  check?: (config: ConfigOf<S>) => ConfigProblem[],
): ConfigOf<S> {
  const problems: ConfigProblem[] = [];
  const config: Record<string, unknown> = {};
  for (const [key, f] of Object.entries(spec)) {
    try {
      const value = f.read(env);
      if (value !== undefined) config[key] = value;
      else if ("default" in f.presence) config[key] = f.presence.default;
      else if ("required" in f.presence)
        problems.push({ variable: f.variable, message: `${f.variable} is required` });
    } catch (cause) {
      if (!(cause instanceof FieldRefusal)) throw cause;
      problems.push({ variable: f.variable, message: cause.message });
    }
  }
  if (problems.length === 0 && check) problems.push(...check(config as ConfigOf<S>));
  if (problems.length > 0) throw new ConfigError(problems);
  return config as ConfigOf<S>;
}
