/** The files the tree tests read: those under `dirs` of the repository at `root` whose names match `pattern`. */
import { readdirSync } from "node:fs";
import { join, relative } from "node:path";

export function filesUnder(root: string, dirs: readonly string[], pattern: RegExp): string[] {
  return dirs.flatMap((dir) =>
    readdirSync(join(root, dir), { recursive: true, withFileTypes: true })
      .filter((e) => e.isFile() && pattern.test(e.name))
      .map((e) => relative(root, join(e.parentPath, e.name))),
  );
}
