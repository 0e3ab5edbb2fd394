import type { ApiPrincipal } from "../auth/credential-lookup.ts";

/** Registry ids a caller may see; null is every project (no scope, or auth disabled). */
export function scopeOf(principal: ApiPrincipal | null): readonly string[] | null {
  return principal?.projectIds ?? null;
}

/** Who an audit row names: the API token's id, or `auth-disabled`. */
export function auditActor(principal: ApiPrincipal | null): string {
  return principal === null ? "auth-disabled" : `api_token:${principal.id}`;
}
