/**
 * Files our programs read at run time (the schema migrations, the API page's assets), found by their
 * path in the repository. Run by Bun from the sources, they are read beside the sources; an executable
 * of `./svc build` carries them embedded under `shipped/` by the same paths, and every module's
 * `import.meta.dir` is then the embedded root, `/$bunfs/root` (decision 517).
 */
import { join } from "node:path";

/** The directory the build embeds the shipped files under. */
export const shippedDirName = "shipped";

const compiled = import.meta.dir.startsWith("/$bunfs/");
const root = compiled ? join(import.meta.dir, shippedDirName) : join(import.meta.dir, "../../..");

/** Where a shipped file is read, from its repository path (`drizzle/engine`). */
export function shippedPath(relative: string): string {
  return join(root, relative);
}
