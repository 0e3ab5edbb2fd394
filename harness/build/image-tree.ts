/**
 * An image's steps reproduced in a directory that stands for its file system (decision 518): COPY
 * copies from the build context minus what `.dockerignore` excludes, `RUN bun install` installs from
 * bun.lock into the tree (offline, from the machine's Bun cache), WORKDIR, ENV, USER, EXPOSE, VOLUME,
 * HEALTHCHECK and ENTRYPOINT are kept; an unprivileged account of this machine plays the image's user.
 * A RUN this file does not know is refused, so that a new step is reproduced on purpose.
 */
import { chownSync, copyFileSync, mkdirSync, readdirSync, statSync } from "node:fs";
import { join, posix } from "node:path";
import { runCommand } from "../process/run-command.ts";
import type { SystemUser } from "../process/temp-dir.ts";
import { type Containerfile, ContainerfileError, type Instruction } from "./containerfile.ts";

/** What a reproduced stage holds and how its image would start. */
export interface ImageTree {
  stage: string;
  /** The host directory standing for the image's `/`. */
  root: string;
  /** WORKDIR inside the image. */
  workdir: string;
  env: Record<string, string>;
  user: string | undefined;
  exposed: number[];
  volumes: string[];
  healthcheck: string[] | undefined;
  entrypoint: string[];
  cmd: string[];
}

interface ReproduceOptions {
  file: Containerfile;
  stage: string;
  /** The build context (the repository). */
  context: string;
  /** `.dockerignore` patterns, relative to the context. */
  ignore: readonly string[];
  /** Where the stage's tree goes (must not exist yet). */
  root: string;
  /** Plays the image's user: owns what `install -o` creates and the user's home. */
  player: SystemUser;
  /** The reproduced stage this one is built `FROM` (its tree is hard-linked, not copied). */
  above?: ImageTree;
}

/** The host path of a path inside the image. */
export function hostPath(tree: Pick<ImageTree, "root">, imagePath: string): string {
  return join(tree.root, imagePath);
}

/** The home of an image's account. */
export const homeOf = (user: string | undefined) =>
  user === undefined || user === "root" ? "/root" : `/home/${user}`;

function excludedBy(patterns: readonly string[]): (rel: string) => boolean {
  for (const p of patterns)
    if (p.startsWith("!")) throw new ContainerfileError(`.dockerignore exceptions are not reproduced: ${p}`);
  const globs = patterns.map((p) => new Bun.Glob(p));
  return (rel) => {
    // A path is excluded when it or a directory above it matches.
    const parts = rel.split("/");
    for (let n = 1; n <= parts.length; n++) {
      const prefix = parts.slice(0, n).join("/");
      if (globs.some((g) => g.match(prefix))) return true;
    }
    return false;
  };
}

function copyInto(source: string, dest: string, rel: string, excluded: (rel: string) => boolean): void {
  if (excluded(rel)) return;
  if (statSync(source).isDirectory()) {
    mkdirSync(dest, { recursive: true, mode: 0o755 });
    for (const entry of readdirSync(source))
      copyInto(join(source, entry), join(dest, entry), `${rel}/${entry}`, excluded);
  } else {
    mkdirSync(join(dest, ".."), { recursive: true, mode: 0o755 });
    copyFileSync(source, dest);
  }
}

/** COPY as the engines do it: a directory's contents, a file into a dest ending in `/` or as the dest. */
function copy(tree: ImageTree, step: { sources: string[]; dest: string }, options: ReproduceOptions): void {
  const dest = posix.resolve(tree.workdir, step.dest);
  const intoDir = step.dest.endsWith("/");
  if (step.sources.length > 1 && !intoDir)
    throw new ContainerfileError(`COPY of several sources needs a destination ending in /: ${step.dest}`);
  const excluded = excludedBy(options.ignore);
  for (const source of step.sources) {
    const rel = posix.normalize(source);
    if (rel.startsWith("..")) throw new ContainerfileError(`COPY source outside the context: ${source}`);
    const from = join(options.context, rel);
    const isDir = statSync(from).isDirectory();
    const target = isDir || !intoDir ? dest : posix.join(dest, posix.basename(rel));
    copyInto(from, hostPath(tree, target), rel, excluded);
  }
}

async function run(tree: ImageTree, command: string, options: ReproduceOptions): Promise<void> {
  const parts = command.split(/\s+/);
  if (/^bun install( --[a-z-]+)*$/.test(command)) {
    // Offline: every package comes from the Bun cache the repository's own install filled.
    await runCommand("bun", [...parts.slice(1), "--offline"], {
      cwd: hostPath(tree, tree.workdir),
      timeoutMs: 300_000,
    });
    return;
  }
  const dir = /^install -d -o (\S+) -g (\S+) (\/\S+)$/.exec(command);
  if (dir !== null) {
    const path = hostPath(tree, dir[3] ?? "");
    mkdirSync(path, { recursive: true, mode: 0o755 });
    chownSync(path, options.player.uid, options.player.gid);
    return;
  }
  throw new ContainerfileError(`RUN ${command} is not reproduced by the image test`);
}

async function apply(tree: ImageTree, step: Instruction, options: ReproduceOptions): Promise<void> {
  switch (step.kind) {
    case "WORKDIR":
      tree.workdir = posix.resolve(tree.workdir, step.path);
      mkdirSync(hostPath(tree, tree.workdir), { recursive: true, mode: 0o755 });
      return;
    case "ENV":
      Object.assign(tree.env, step.vars);
      return;
    case "COPY":
      return copy(tree, step, options);
    case "RUN":
      return run(tree, step.command, options);
    case "USER": {
      tree.user = step.user;
      // The base image's account has a home (the official Bun image's `bun` is made with --create-home).
      const home = hostPath(tree, homeOf(step.user));
      mkdirSync(home, { recursive: true, mode: 0o755 });
      chownSync(home, options.player.uid, options.player.gid);
      return;
    }
    case "EXPOSE":
      tree.exposed.push(...step.ports);
      return;
    case "VOLUME":
      tree.volumes.push(...step.paths);
      return;
    case "HEALTHCHECK":
      tree.healthcheck = step.command;
      return;
    case "ENTRYPOINT":
      // As in the engines, a new ENTRYPOINT drops the CMD inherited from above.
      tree.entrypoint = step.command;
      tree.cmd = [];
      return;
    case "CMD":
      tree.cmd = step.command;
  }
}

/** Reproduces one stage into `options.root`; a stage built FROM another needs that one as `above`. */
export async function reproduceStage(options: ReproduceOptions): Promise<ImageTree> {
  const stage = options.file.stages.find((s) => s.name === options.stage);
  if (stage === undefined) throw new ContainerfileError(`no stage named ${options.stage}`);
  const fromStage = options.file.stages.some((s) => s.name === stage.from);
  if (fromStage !== (options.above?.stage === stage.from))
    throw new ContainerfileError(
      `stage ${stage.name} is built FROM ${stage.from}: pass ${fromStage ? "that stage's tree" : "no tree"} as above`,
    );
  let tree: ImageTree;
  if (options.above !== undefined) {
    // Hard links: the node_modules of the stage above cost nothing to carry into each target.
    await runCommand("cp", ["-al", options.above.root, options.root]);
    tree = {
      ...options.above,
      stage: stage.name,
      root: options.root,
      env: { ...options.above.env },
      exposed: [...options.above.exposed],
      volumes: [...options.above.volumes],
    };
  } else {
    mkdirSync(options.root, { mode: 0o755 });
    tree = {
      stage: stage.name,
      root: options.root,
      workdir: "/",
      env: {},
      user: undefined,
      exposed: [],
      volumes: [],
      healthcheck: undefined,
      entrypoint: [],
      cmd: [],
    };
  }
  for (const step of stage.instructions) await apply(tree, step, options);
  return tree;
}

/** Every file of the tree under an image path, relative to it (for asserting what an image carries). */
export function treeFiles(tree: ImageTree, imagePath: string): string[] {
  const base = hostPath(tree, imagePath);
  return (readdirSync(base, { recursive: true }) as string[]).filter(
    (rel) => !statSync(join(base, rel)).isDirectory(),
  );
}
