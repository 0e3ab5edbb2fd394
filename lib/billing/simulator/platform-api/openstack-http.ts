/**
 * What every fake OpenStack service shares: its error bodies, the token check, UTC timestamps in the
 * services' own forms, and marker pagination (docs/simulator.md, fake platform API).
 */

/** keystonemiddleware's refusal, which every service answers before its own code runs. */
export function unauthorized(): Response {
  return Response.json(
    {
      error: {
        code: 401,
        title: "Unauthorized",
        message: "The request you have made requires authentication.",
      },
    },
    { status: 401, headers: { "www-authenticate": 'Keystone uri="/v3"' } },
  );
}

/** A service's fault body: `{"<kind>": {"code": ..., "message": ...}}` (nova, cinder, octavia style). */
export function fault(status: number, kind: string, message: string): Response {
  return Response.json({ [kind]: { code: status, message } }, { status });
}

/** Null when `X-Auth-Token` carries the run's token, else the 401 to answer. */
export function checkToken(request: Request, token: string): Response | null {
  return request.headers.get("x-auth-token") === token ? null : unauthorized();
}

/** `2026-10-01T00:10:00Z` (nova, glance, neutron). */
export function isoZ(ms: number): string {
  return `${new Date(ms).toISOString().slice(0, 19)}Z`;
}

/** `2026-10-01T00:10:00.000000` (cinder). */
export function isoMicros(ms: number): string {
  return `${new Date(ms).toISOString().slice(0, 23)}000`;
}

/** `2026-10-01T00:10:00` (octavia). */
export function isoPlain(ms: number): string {
  return new Date(ms).toISOString().slice(0, 19);
}

/**
 * Marker pagination as the services do it: the page after the item whose id is `marker`, at most
 * `limit` items (the service's default when absent, never above its maximum). Items are in id order.
 * An unknown marker or a limit that is not a positive integer is the service's 400.
 */
export function paginate<T extends { id: string }>(
  items: readonly T[],
  query: URLSearchParams,
  limits: { default: number; max: number },
): { items: T[]; next: string | null } | Response {
  const rawLimit = query.get("limit");
  let limit = limits.default;
  if (rawLimit !== null) {
    const n = /^\d+$/.test(rawLimit) ? Number(rawLimit) : Number.NaN;
    if (!Number.isSafeInteger(n) || n < 0) {
      return fault(400, "badRequest", "limit must be an integer 0 or greater");
    }
    limit = Math.min(n, limits.max);
  }
  let start = 0;
  const marker = query.get("marker");
  if (marker !== null) {
    const at = items.findIndex((item) => item.id === marker);
    if (at < 0) return fault(400, "badRequest", `marker [${marker}] not found`);
    start = at + 1;
  }
  const page = items.slice(start, start + limit);
  const more = start + limit < items.length && page.length > 0;
  return { items: page, next: more ? (page[page.length - 1]?.id ?? null) : null };
}

/** The URL of the next page: the request's own, with `marker` set. */
export function nextLink(request: Request, marker: string): string {
  const url = new URL(request.url);
  const host = request.headers.get("host");
  if (host !== null) url.host = host;
  url.searchParams.set("marker", marker);
  return url.toString();
}
