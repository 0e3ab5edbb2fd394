/**
 * A Containerfile read into its stages and instructions, for the test that reproduces an image's steps
 * where no container engine runs (decision 518). Only the instructions and forms our Containerfile
 * uses are read; anything else is refused by name, so that a new step is reproduced on purpose
 * rather than skipped.
 */

export type Instruction =
  | { kind: "WORKDIR"; path: string }
  | { kind: "ENV"; vars: Record<string, string> }
  | { kind: "COPY"; sources: string[]; dest: string }
  | { kind: "RUN"; command: string }
  | { kind: "USER"; user: string }
  | { kind: "EXPOSE"; ports: number[] }
  | { kind: "VOLUME"; paths: string[] }
  | { kind: "HEALTHCHECK"; options: Record<string, string>; command: string[] }
  | { kind: "ENTRYPOINT"; command: string[] }
  | { kind: "CMD"; command: string[] };

export interface Stage {
  name: string;
  /** An earlier stage's name or an image reference, with `ARG`s substituted. */
  from: string;
  instructions: Instruction[];
}

export interface Containerfile {
  /** `ARG`s declared before the first `FROM`, with their defaults. */
  args: Record<string, string>;
  stages: Stage[];
}

/** A line the reader refuses, with its line number. */
export class ContainerfileError extends Error {
  override name = "ContainerfileError";
}

/** Logical lines: comments dropped, `\` continuations joined, each with the number of its first line. */
function logicalLines(text: string): { line: number; text: string }[] {
  const out: { line: number; text: string }[] = [];
  let pending: { line: number; text: string } | undefined;
  text.split("\n").forEach((raw, index) => {
    const trimmed = raw.trim();
    if (trimmed.startsWith("#") || (trimmed === "" && pending === undefined)) return;
    const continued = trimmed.endsWith("\\");
    const body = continued ? trimmed.slice(0, -1).trim() : trimmed;
    pending =
      pending === undefined
        ? { line: index + 1, text: body }
        : { ...pending, text: `${pending.text} ${body}` };
    if (!continued) {
      out.push(pending);
      pending = undefined;
    }
  });
  if (pending !== undefined) out.push(pending);
  return out;
}

/** The exec form, a JSON array of strings. */
function execForm(text: string, where: string): string[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new ContainerfileError(`${where}: only the exec form (a JSON array) is read, got ${text}`);
  }
  if (!Array.isArray(parsed) || parsed.length === 0 || !parsed.every((p) => typeof p === "string"))
    throw new ContainerfileError(`${where}: the exec form is a non-empty JSON array of strings`);
  return parsed;
}

const words = (text: string) => text.split(/\s+/).filter((w) => w !== "");

function substitute(text: string, args: Record<string, string>, where: string): string {
  return text.replace(/\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g, (_, name: string) => {
    const value = args[name];
    if (value === undefined) throw new ContainerfileError(`${where}: ARG ${name} has no default`);
    return value;
  });
}

function keyValues(text: string, where: string): Record<string, string> {
  const vars: Record<string, string> = {};
  for (const pair of words(text)) {
    const eq = pair.indexOf("=");
    if (eq <= 0) throw new ContainerfileError(`${where}: ENV is read in its KEY=VALUE form, got ${pair}`);
    vars[pair.slice(0, eq)] = pair.slice(eq + 1);
  }
  return vars;
}

function instruction(keyword: string, rest: string, where: string): Instruction {
  switch (keyword) {
    case "WORKDIR":
      return { kind: "WORKDIR", path: rest };
    case "ENV":
      return { kind: "ENV", vars: keyValues(rest, where) };
    case "COPY": {
      const parts = words(rest);
      if (parts.some((p) => p.startsWith("--")))
        throw new ContainerfileError(`${where}: COPY is read without flags, got ${rest}`);
      const dest = parts.pop();
      if (dest === undefined || parts.length === 0)
        throw new ContainerfileError(`${where}: COPY takes sources and a destination`);
      return { kind: "COPY", sources: parts, dest };
    }
    case "RUN":
      return { kind: "RUN", command: rest };
    case "USER":
      return { kind: "USER", user: rest };
    case "EXPOSE":
      return { kind: "EXPOSE", ports: words(rest).map((p) => Number.parseInt(p, 10)) };
    case "VOLUME":
      return { kind: "VOLUME", paths: words(rest) };
    case "HEALTHCHECK": {
      const options: Record<string, string> = {};
      let tail = rest;
      for (let m = /^--([a-z-]+)=(\S+)\s+/.exec(tail); m !== null; m = /^--([a-z-]+)=(\S+)\s+/.exec(tail)) {
        options[m[1] ?? ""] = m[2] ?? "";
        tail = tail.slice(m[0].length);
      }
      if (!tail.startsWith("CMD "))
        throw new ContainerfileError(`${where}: HEALTHCHECK is read as [--option=value...] CMD [...]`);
      return { kind: "HEALTHCHECK", options, command: execForm(tail.slice(4).trim(), where) };
    }
    case "ENTRYPOINT":
      return { kind: "ENTRYPOINT", command: execForm(rest, where) };
    case "CMD":
      return { kind: "CMD", command: execForm(rest, where) };
    default:
      throw new ContainerfileError(`${where}: ${keyword} is not reproduced by the image test`);
  }
}

export function parseContainerfile(text: string): Containerfile {
  const args: Record<string, string> = {};
  const stages: Stage[] = [];
  for (const { line, text: body } of logicalLines(text)) {
    const where = `line ${line}`;
    const match = /^([A-Za-z]+)\s+(.*)$/.exec(body);
    if (match === null) throw new ContainerfileError(`${where}: not an instruction: ${body}`);
    const keyword = (match[1] ?? "").toUpperCase();
    const rest = (match[2] ?? "").trim();
    const current = stages.at(-1);
    if (keyword === "ARG" && current === undefined) {
      const [name, value] = rest.split("=");
      if (name === undefined || value === undefined)
        throw new ContainerfileError(`${where}: ARG is read as NAME=default`);
      args[name] = value;
    } else if (keyword === "FROM") {
      const from = /^(\S+)\s+AS\s+(\S+)$/i.exec(rest);
      if (from === null) throw new ContainerfileError(`${where}: FROM is read as <image> AS <name>`);
      stages.push({ name: from[2] ?? "", from: substitute(from[1] ?? "", args, where), instructions: [] });
    } else if (current === undefined) {
      throw new ContainerfileError(`${where}: ${keyword} before the first FROM`);
    } else {
      current.instructions.push(instruction(keyword, rest, where));
    }
  }
  return { args, stages };
}
