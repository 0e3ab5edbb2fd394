import { randomBytes } from "node:crypto";

/** `<prefix>_<12 hex>`: unique across processes, valid as a database, vhost or chassis name. */
export function uniqueName(prefix: string): string {
  return `${prefix}_${randomBytes(6).toString("hex")}`;
}
