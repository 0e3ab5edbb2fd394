import type { PasswordCloud } from "./clouds-yaml.ts";

/** The platform's identity service refused or did not answer; the message never holds a secret. */
export class PlatformAuthError extends Error {
  constructor(message: string, options: { cause?: unknown } = {}) {
    super(message, options);
    this.name = "PlatformAuthError";
  }
}

interface CatalogEndpoint {
  interface?: unknown;
  region?: unknown;
  region_id?: unknown;
  url?: unknown;
}

interface CatalogService {
  type?: unknown;
  endpoints?: unknown;
}

/** A scoped token and the service catalog it came with. */
export interface PlatformSession {
  token: string;
  catalog: readonly CatalogService[];
}

/**
 * Identity v3 password authentication (`POST {auth_url}/auth/tokens`), scoped to the entry's project:
 * the token from `X-Subject-Token` and the catalog from the body.
 */
export async function authenticate(
  cloud: PasswordCloud,
  options: { signal: AbortSignal; fetch?: typeof fetch },
): Promise<PlatformSession> {
  const body = {
    auth: {
      identity: {
        methods: ["password"],
        password: { user: { ...cloud.user, password: cloud.password.reveal() } },
      },
      scope: { project: cloud.project },
    },
  };
  const doFetch = options.fetch ?? fetch;
  let response: Response;
  try {
    response = await doFetch(`${cloud.authUrl}/auth/tokens`, {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json" },
      body: JSON.stringify(body),
      signal: options.signal,
      ...(cloud.verify ? {} : { tls: { rejectUnauthorized: false } }),
    });
  } catch (cause) {
    throw new PlatformAuthError(`the identity service at ${cloud.authUrl} did not answer`, { cause });
  }
  if (response.status !== 201 && response.status !== 200) {
    throw new PlatformAuthError(
      `the identity service at ${cloud.authUrl} refused the credentials (${response.status})`,
    );
  }
  const token = response.headers.get("x-subject-token");
  const document = (await response.json().catch(() => null)) as { token?: { catalog?: unknown } } | null;
  if (token === null || token === "" || !Array.isArray(document?.token?.catalog)) {
    throw new PlatformAuthError(
      `the identity service at ${cloud.authUrl} answered without a token or catalog`,
    );
  }
  return { token, catalog: document.token.catalog as CatalogService[] };
}

/**
 * The URL of the first catalog service among `types` (in preference order) with an endpoint of the
 * entry's interface, and of its region when it names one; null when the catalog has none.
 */
export function endpointOf(
  session: PlatformSession,
  types: readonly string[],
  where: { interface: string; region: string | null },
): string | null {
  for (const type of types) {
    for (const service of session.catalog) {
      if (service.type !== type || !Array.isArray(service.endpoints)) continue;
      for (const e of service.endpoints as CatalogEndpoint[]) {
        if (e.interface !== where.interface || typeof e.url !== "string") continue;
        if (where.region !== null && e.region !== where.region && e.region_id !== where.region) continue;
        return e.url.replace(/\/+$/, "");
      }
    }
  }
  return null;
}
