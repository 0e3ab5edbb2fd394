import { readFileSync } from "node:fs";
import type { SystemUser } from "./temp-dir.ts";

/** Looks a system account up in /etc/passwd (postgres, rabbitmq: the users Debian's daemons run as). */
export function systemUser(name: string): SystemUser {
  for (const line of readFileSync("/etc/passwd", "utf8").split("\n")) {
    const [user, , uid, gid] = line.split(":");
    if (user === name && uid !== undefined && gid !== undefined)
      return { name, uid: Number(uid), gid: Number(gid) };
  }
  throw new Error(`system user ${name} does not exist (is its Debian package installed?)`);
}
