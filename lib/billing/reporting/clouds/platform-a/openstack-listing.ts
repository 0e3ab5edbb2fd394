import type { JsonObject } from "../../../../foundation/json/json-value.ts";

/** A listing call the platform refused or did not answer; the message names the listing, not the token. */
export class PlatformListingError extends Error {
  /** The HTTP status the platform answered; null when it did not answer or answered no listing. */
  readonly status: number | null;

  constructor(message: string, options: { cause?: unknown; status?: number } = {}) {
    super(message, options);
    this.name = "PlatformListingError";
    this.status = options.status ?? null;
  }
}

type Json = Record<string, unknown>;

/** The marker of the next page: from `<key>_links` (nova, cinder, neutron, octavia) or glance's `next`. */
function nextMarker(document: Json, key: string): string | null {
  const links = document[`${key}_links`];
  let href: string | null = null;
  if (Array.isArray(links)) {
    const next = links.find((l) => typeof l === "object" && l !== null && (l as Json).rel === "next") as
      | Json
      | undefined;
    href = typeof next?.href === "string" ? next.href : null;
  } else if (typeof document.next === "string") href = document.next;
  if (href === null) return null;
  // Only the marker is taken: services behind a proxy often put their own host in the link.
  return new URL(href, "http://relative.invalid").searchParams.get("marker");
}

/**
 * Every item of a paged OpenStack listing: `GET {url}?{query}` and then the page after each last
 * marker until a page names no next one. `limit` is sent when given (neutron pages only when asked).
 */
export async function listAll(options: {
  url: string;
  key: string;
  token: string;
  signal: AbortSignal;
  query?: Record<string, string>;
  headers?: Record<string, string>;
  limit?: number;
  fetch?: typeof fetch;
}): Promise<JsonObject[]> {
  const doFetch = options.fetch ?? fetch;
  const items: JsonObject[] = [];
  let marker: string | null = null;
  for (;;) {
    const params = new URLSearchParams(options.query ?? {});
    if (options.limit !== undefined) params.set("limit", String(options.limit));
    if (marker !== null) params.set("marker", marker);
    const target = `${options.url}${params.size > 0 ? `?${params.toString()}` : ""}`;
    let response: Response;
    try {
      response = await doFetch(target, {
        headers: { accept: "application/json", "x-auth-token": options.token, ...options.headers },
        signal: options.signal,
      });
    } catch (cause) {
      throw new PlatformListingError(`GET ${options.url} did not answer`, { cause });
    }
    if (!response.ok) {
      throw new PlatformListingError(`GET ${options.url} answered ${response.status}`, {
        status: response.status,
      });
    }
    const document = (await response.json().catch(() => null)) as Json | null;
    const page = document?.[options.key];
    if (document === null || !Array.isArray(page)) {
      throw new PlatformListingError(`GET ${options.url} answered without a ${options.key} list`);
    }
    items.push(...(page as JsonObject[]));
    const next = nextMarker(document, options.key);
    if (next === null || page.length === 0 || next === marker) return items;
    marker = next;
  }
}
