import { chmodSync, chownSync, mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { join } from "node:path";
import { leaseRoot, returnRoot } from "./cleanup-registry.ts";

/** A private dir under the harness root (`<tmpdir>/svc-harness-*`), removed by `remove()`. */
export interface TempDir {
  readonly path: string;
  /** Creates `name` inside the dir (mode 0700 unless given), owned by `owner` when given. */
  sub(name: string, options?: { owner?: SystemUser; mode?: number }): string;
  remove(): void;
}

/** A system account a daemon runs as, with its numeric ids. */
export interface SystemUser {
  name: string;
  uid: number;
  gid: number;
}

export function makeTempDir(label: string): TempDir {
  const root = leaseRoot();
  const path = mkdtempSync(join(root, `${label}-`));
  // Daemons that run as their own user must traverse this dir to reach the sub dirs they own.
  chmodSync(path, 0o711);
  let removed = false;
  return {
    path,
    sub(name, options = {}) {
      const sub = join(path, name);
      mkdirSync(sub, { recursive: true, mode: options.mode ?? 0o700 });
      if (options.owner !== undefined) chownSync(sub, options.owner.uid, options.owner.gid);
      return sub;
    },
    remove() {
      if (removed) return;
      removed = true;
      rmSync(path, { recursive: true, force: true });
      returnRoot();
    },
  };
}
