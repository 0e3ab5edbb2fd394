/**
 * The usage every program prints for `--help` (decision 49): the command and what it does, a usage
 * line, then its commands or its flags, then the variables it reads. Written here rather than by
 * citty's renderer, which pads every line to the longest (trailing spaces, lines of 200 characters),
 * names a value after its flag (`<wait_for_collector>`), and writes "(Default: x)", "(Required)" and
 * "(Default: )" beside our own "(default: x)". One notation here: `(default: x)`, `(required)`.
 */
import type { ArgDef } from "citty";
import type { Field, Presence } from "../config/fields.ts";
import type { Command } from "./command.ts";

/** The width help wraps to when stdout is not a terminal. */
export const helpWidth = 80;
/** Narrower terminals than this still get this width: a column of one word helps nobody. */
const minimumWidth = 40;
/** The widest a name column grows; a longer name puts its description on the next line. */
const nameColumn = 30;
/** The narrowest a description column may be before descriptions go under their names. */
const narrowest = 36;

/** A word longer than `width` cut after its commas or slashes where it can, else anywhere. */
function pieces(word: string, width: number): string[] {
  if (word.length <= width) return [word];
  const cut = Math.max(word.lastIndexOf(",", width - 1), word.lastIndexOf("/", width - 1));
  const at = cut > 0 ? cut + 1 : width;
  return [word.slice(0, at), ...pieces(word.slice(at), width)];
}

/** Words of `text` in lines of at most `width` characters. */
export function wrap(text: string, width: number): string[] {
  const lines: string[] = [];
  let line = "";
  const words = text.split(/\s+/).filter((w) => w !== "");
  for (const word of words.flatMap((w) => pieces(w, width))) {
    if (line !== "" && line.length + 1 + word.length > width) {
      lines.push(line);
      line = word;
    } else line = line === "" ? word : `${line} ${word}`;
  }
  if (line !== "") lines.push(line);
  return lines;
}

/**
 * A table of names and descriptions, the descriptions wrapped in their column; where that column would
 * be narrower than `narrowest`, each description goes under its name instead.
 */
function table(rows: readonly [string, string][], width: number): string[] {
  const widest = Math.min(Math.max(0, ...rows.map(([name]) => name.length)), nameColumn);
  const stacked = width - (widest + 4) < narrowest;
  const names = stacked ? 0 : widest;
  const column = stacked ? 6 : 2 + names + 2;
  const out: string[] = [];
  for (const [name, description] of rows) {
    const text = wrap(description, width - column);
    if (stacked || name.length > names) {
      out.push(`  ${name}`);
      for (const line of text) out.push(`${" ".repeat(column)}${line}`);
      continue;
    }
    out.push(`  ${name.padEnd(names)}  ${text[0] ?? ""}`.trimEnd());
    for (const line of text.slice(1)) out.push(`${" ".repeat(column)}${line}`);
  }
  return out;
}

/** How a value shows in text: a list joined by commas, nothing as `none`. */
function shown(value: unknown): string {
  const text = Array.isArray(value) ? value.join(",") : String(value);
  return text === "" ? "none" : text;
}

/** `<hint>` after a flag that takes a value: its hint, its choices, or `<value>`. */
function placeholder(def: ArgDef): string {
  if (def.type === "enum") return `<${(def.options ?? []).join("|")}>`;
  if (def.type === "boolean") return "";
  return `<${def.valueHint ?? "value"}>`;
}

/** A flag's description with its default or its requiredness, in the one notation. */
function flagNote(def: ArgDef): string {
  const description = def.description ?? "";
  if (def.required === true) return `${description} (required)`;
  if (def.default !== undefined && def.type !== "boolean")
    return `${description} (default: ${shown(def.default)})`;
  if (def.type === "boolean" && def.default === true) return `${description} (default: on)`;
  return description;
}

function variableNote(field: Field<unknown, Presence<unknown>>): string {
  const presence = field.presence;
  if ("default" in presence) return `(default: ${shown(presence.default)})`;
  return "required" in presence ? "(required)" : "(optional)";
}

/** The usage of `command`, reached by `path` (`["engine", "periods", "list"]`), wrapped to `width`. */
export function helpText(command: Command, path: readonly string[], width: number): string {
  const at = Math.max(width, minimumWidth);
  const name = path.join(" ");
  const lines = [...wrap(`${name}: ${command.description}`, at), ""];
  const entries = Object.entries(command.args);
  const positionals = entries.filter(([, def]) => def.type === "positional");
  const flags = entries.filter(([, def]) => def.type !== "positional");
  if (command.subCommands !== undefined) {
    lines.push(`Usage: ${name} <command> [options]`, "", "Commands:");
    lines.push(
      ...table(
        Object.entries(command.subCommands).map(([sub, c]) => [sub, c.description]),
        at,
      ),
    );
    lines.push("", "Options:");
    lines.push(...table(rootOptions(path), at));
    lines.push("", ...wrap(`Run '${name} <command> --help' for a command's flags and variables.`, at));
    return `${lines.join("\n")}\n`;
  }
  const required = flags.filter(([, def]) => def.required === true);
  const usage = [
    name,
    ...required.map(([flag, def]) => `--${flag} ${placeholder(def)}`),
    ...(flags.length > required.length ? ["[options]"] : []),
    ...positionals.map(([arg, def]) => (def.required === false ? `[${arg}]` : `<${arg}>`)),
  ];
  lines.push(...wrap(`Usage: ${usage.join(" ")}`, at));
  if (positionals.length > 0) {
    lines.push("", "Arguments:");
    lines.push(
      ...table(
        positionals.map(([arg, def]) => [`<${arg}>`, def.description ?? ""]),
        at,
      ),
    );
  }
  lines.push("", "Options:");
  lines.push(
    ...table(
      [
        ...flags.map(([flag, def]): [string, string] => [
          `--${flag} ${placeholder(def)}`.trimEnd(),
          flagNote(def),
        ]),
        ...rootOptions(path),
      ],
      at,
    ),
  );
  if (command.settings.length > 0) {
    lines.push("", "Environment:");
    lines.push(
      ...table(
        command.settings.map((field) => [field.variable, variableNote(field)]),
        at,
      ),
    );
  }
  return `${lines.join("\n")}\n`;
}

/** `--help` on every command, `--version` on the program itself. */
function rootOptions(path: readonly string[]): [string, string][] {
  const help: [string, string] = ["-h, --help", "print this help"];
  return path.length === 1 ? [help, ["--version", "print the program's version"]] : [help];
}
