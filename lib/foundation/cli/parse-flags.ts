import type { ArgDef, ArgsDef } from "citty";

/** Flag values by their declared names: strings, booleans and positionals as given. */
type FlagValues = Record<string, string | boolean | undefined>;

interface Declared {
  name: string;
  def: ArgDef;
}

function declared(args: ArgsDef): { byFlag: Map<string, Declared>; positionals: Declared[] } {
  const byFlag = new Map<string, Declared>();
  const positionals: Declared[] = [];
  for (const [name, def] of Object.entries(args)) {
    if (def.type === "positional") {
      positionals.push({ name, def });
      continue;
    }
    byFlag.set(name, { name, def });
    const aliases = "alias" in def ? def.alias : undefined;
    for (const alias of aliases === undefined ? [] : Array.isArray(aliases) ? aliases : [aliases]) {
      byFlag.set(alias, { name, def });
    }
  }
  return { byFlag, positionals };
}

const takesValue = (def: ArgDef) => def.type === "string" || def.type === "enum";

/**
 * Reads `tokens` against citty's `args` declaration strictly: an unknown flag, a flag without its
 * value, a boolean given a value other than true or false, an enum value not listed, a required flag
 * missing and an argument nobody declared are each one problem, and all of them are returned together
 * (citty itself ignores unknown flags and stops at the first missing one). Defaults are applied.
 */
export function parseFlags(
  tokens: readonly string[],
  args: ArgsDef,
): { values: FlagValues; problems: string[] } {
  const { byFlag, positionals } = declared(args);
  const values: FlagValues = {};
  const problems: string[] = [];
  const extra: string[] = [];
  let onlyPositionals = false;
  for (let i = 0; i < tokens.length; i++) {
    const token = tokens[i] ?? "";
    if (onlyPositionals || !token.startsWith("-") || token === "-") {
      extra.push(token);
      continue;
    }
    if (token === "--") {
      onlyPositionals = true;
      continue;
    }
    const body = token.replace(/^--?/, "");
    const eq = body.indexOf("=");
    const key = eq === -1 ? body : body.slice(0, eq);
    const inline = eq === -1 ? undefined : body.slice(eq + 1);
    const negated = key.startsWith("no-") ? byFlag.get(key.slice(3)) : undefined;
    if (negated !== undefined && negated.def.type === "boolean" && !byFlag.has(key)) {
      if (inline === undefined) values[negated.name] = false;
      else problems.push(`--${key} takes no value`);
      continue;
    }
    const flag = byFlag.get(key);
    if (flag === undefined) {
      problems.push(`unknown flag ${token.split("=")[0]}`);
      continue;
    }
    if (takesValue(flag.def)) {
      let value = inline;
      if (value === undefined) {
        const next = tokens[i + 1];
        if (next === undefined || (next.startsWith("--") && next.length > 2)) {
          problems.push(`--${flag.name} needs a value`);
          continue;
        }
        value = next;
        i++;
      }
      values[flag.name] = value;
      continue;
    }
    if (inline === undefined || inline === "true") values[flag.name] = true;
    else if (inline === "false") values[flag.name] = false;
    else problems.push(`--${flag.name} is a switch: give it alone, or =true or =false`);
  }
  for (const { name, def } of positionals) {
    const value = extra.shift();
    if (value !== undefined) values[name] = value;
    else if (def.default !== undefined) values[name] = def.default;
    else if (def.required !== false) problems.push(`the argument ${name.toUpperCase()} is required`);
  }
  for (const value of extra) problems.push(`unexpected argument ${JSON.stringify(value)}`);
  for (const [name, def] of Object.entries(args)) {
    if (def.type === "positional") continue;
    const value = values[name];
    if (value === undefined && def.default !== undefined) values[name] = def.default;
    else if (value === undefined && def.required === true) problems.push(`--${name} is required`);
    else if (def.type === "enum" && typeof value === "string" && def.options?.includes(value) === false) {
      problems.push(`--${name} takes one of ${(def.options ?? []).join(", ")}, got ${JSON.stringify(value)}`);
    }
  }
  return { values, problems };
}
