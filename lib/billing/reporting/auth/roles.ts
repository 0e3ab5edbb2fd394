/**
 * API token roles, lowest first; each role may do everything the roles below it may
 * (docs/decisions/, Reporting). `reader`: every read of events, resources, stats, summaries, resource
 * types and the project list. `read_all`: also the project registry row (name, metadata). `admin`:
 * also rejected events, project registration and relations; an admin token carries no project scope.
 */
export const roles = ["reader", "read_all", "admin"] as const;
export type Role = (typeof roles)[number];

export function isRole(value: string): value is Role {
  return (roles as readonly string[]).includes(value);
}

/** True when `held` is `needed` or above it. */
export function roleCovers(held: Role, needed: Role): boolean {
  return roles.indexOf(held) >= roles.indexOf(needed);
}
