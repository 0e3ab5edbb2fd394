/**
 * Resource types a month holds only when asked (`--extra-types`, decision 288): cinder's volume
 * snapshots and backups. They are drawn from a seeded stream of their own, so a month with them is the
 * month without them plus the copies, and the golden months (without them) stay as they are.
 */
export const extraTypes = ["volume_snapshot", "volume_backup"] as const;

export type ExtraType = (typeof extraTypes)[number];

/** Reads `--extra-types`: a comma list of the two, a name given twice counts once; in canonical order. */
export function parseExtraTypes(list: string | undefined): ExtraType[] {
  if (list === undefined || list.trim() === "") return [];
  const names = list.split(",").map((n) => n.trim());
  const unknown = names.filter((n) => !(extraTypes as readonly string[]).includes(n));
  if (unknown.length > 0) {
    throw new RangeError(
      `has unknown type${unknown.length > 1 ? "s" : ""} ${unknown.map((n) => JSON.stringify(n)).join(", ")}: the extra types are ${extraTypes.join(", ")}`,
    );
  }
  return extraTypes.filter((t) => names.includes(t));
}
