/**
 * How a container engine would start a command in a reproduced image (decision 518): in its WORKDIR,
 * with only its ENV (absolute paths placed under the tree), its user's home, and each exposed port
 * mapped to a port of the host as `-p` maps it (the image's port is the container's own; on a shared
 * machine it is taken). Run as the unprivileged account that plays the image's user.
 */
import type { SystemUser } from "../process/temp-dir.ts";
import { homeOf, hostPath, type ImageTree } from "./image-tree.ts";

export interface ImageCommand {
  argv: string[];
  cwd: string;
  env: Record<string, string>;
}

function mapPorts(text: string, ports: ReadonlyMap<number, number>): string {
  let mapped = text;
  for (const [inside, outside] of ports) {
    if (mapped === String(inside)) return String(outside);
    mapped = mapped.replace(new RegExp(`:${inside}(?![0-9])`, "g"), `:${outside}`);
  }
  return mapped;
}

export function inImage(
  tree: ImageTree,
  argv: readonly string[],
  options: { ports: ReadonlyMap<number, number>; env?: Record<string, string> },
): ImageCommand {
  const env: Record<string, string> = {
    // The image's bun is on PATH; here it is the machine's.
    PATH: process.env.PATH ?? "/usr/bin:/bin",
    HOME: hostPath(tree, homeOf(tree.user)),
  };
  for (const [name, value] of Object.entries(tree.env))
    env[name] = value.startsWith("/") ? hostPath(tree, value) : mapPorts(value, options.ports);
  return {
    argv: argv.map((arg) => mapPorts(arg, options.ports)),
    cwd: hostPath(tree, tree.workdir),
    env: { ...env, ...options.env },
  };
}

/** The command line that runs it as `player` with exactly its environment (`setpriv`, then `env -i`). */
export function asPlayer(player: SystemUser, command: ImageCommand): string[] {
  return [
    "setpriv",
    `--reuid=${player.uid}`,
    `--regid=${player.gid}`,
    "--init-groups",
    "--",
    "env",
    "-i",
    ...Object.entries(command.env).map(([name, value]) => `${name}=${value}`),
    ...command.argv,
  ];
}
