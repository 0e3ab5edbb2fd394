import { Elysia } from "elysia";
import { isoMicros } from "./openstack-http.ts";

/** The one credential pair the fake identity service accepts (docs/simulator.md; decision 237). */
export const platformCredentials = {
  user: "admin",
  password: "svc-simulator",
  project: "admin",
  domain: "Default",
} as const;

const projectId = "5c3f0e7a9b1d4e2f8a6c0b9d7e5f3a1c";
const userId = "0f9e8d7c6b5a49382716a5b4c3d2e1f0";

/** Where each service lives under the simulator's listener, by catalog type. */
const services = [
  { type: "identity", name: "keystone", path: "/v3" },
  { type: "compute", name: "nova", path: "/compute/v2.1" },
  { type: "volumev3", name: "cinderv3", path: "/volume/v3" },
  { type: "block-storage", name: "cinder", path: "/volume/v3" },
  { type: "network", name: "neutron", path: "/network" },
  { type: "image", name: "glance", path: "/image" },
  { type: "load-balancer", name: "octavia", path: "/load-balancer" },
] as const;

/** The service catalog for a client that reached us as `host` (the request's Host header). */
export function serviceCatalog(host: string) {
  return services.map((service, i) => ({
    id: `${String(i + 1).padStart(2, "0")}${"0".repeat(30)}`,
    type: service.type,
    name: service.name,
    endpoints: (["public", "internal", "admin"] as const).map((iface, j) => ({
      id: `${String(i + 1).padStart(2, "0")}${String(j + 1).padStart(2, "0")}${"0".repeat(28)}`,
      interface: iface,
      region: "RegionOne",
      region_id: "RegionOne",
      url: `http://${host}${service.path}`,
    })),
  }));
}

interface PasswordAuth {
  auth?: {
    identity?: {
      methods?: unknown;
      password?: { user?: { name?: unknown; id?: unknown; password?: unknown } };
    };
  };
}

function credentialsMatch(body: unknown): boolean {
  const identity = (body as PasswordAuth | null)?.auth?.identity;
  const user = identity?.password?.user;
  return (
    Array.isArray(identity?.methods) &&
    identity.methods.includes("password") &&
    (user?.name === platformCredentials.user || user?.id === userId) &&
    user?.password === platformCredentials.password
  );
}

/**
 * keystone's version discovery (`GET /v3`), which every client asks before it authenticates and warns
 * about when it is missing (decision 289); unauthenticated, as keystone answers it.
 */
function versionDocument(request: Request) {
  const host = request.headers.get("host") ?? new URL(request.url).host;
  return {
    version: {
      id: "v3.14",
      status: "stable",
      updated: "2020-04-07T00:00:00Z",
      links: [{ rel: "self", href: `http://${host}/v3/` }],
      "media-types": [{ base: "application/json", type: "application/vnd.openstack.identity-v3+json" }],
    },
  };
}

/**
 * `POST /v3/auth/tokens` (keystone's password method): the run's one token in `X-Subject-Token`, with
 * the catalog of the host the client used. Token times are wall-clock, not virtual: clients compare
 * `expires_at` with their own clock (decision 237).
 */
export function identityRoutes(token: string) {
  return new Elysia({ name: "svc-simulator-identity" })
    .get("/v3", ({ request }) => versionDocument(request))
    .post(
      "/v3/auth/tokens",
      async ({ request }) => {
        let body: unknown = null;
        try {
          body = JSON.parse(await request.text());
        } catch {
          body = null;
        }
        if (!credentialsMatch(body)) {
          return Response.json(
            {
              error: {
                code: 401,
                title: "Unauthorized",
                message: "The request you have made requires authentication.",
              },
            },
            { status: 401 },
          );
        }
        const host = request.headers.get("host") ?? new URL(request.url).host;
        const now = Date.now();
        const document = {
          token: {
            methods: ["password"],
            user: {
              id: userId,
              name: platformCredentials.user,
              domain: { id: "default", name: platformCredentials.domain },
              password_expires_at: null,
            },
            audit_ids: [token.slice(0, 22)],
            expires_at: `${isoMicros(now + 24 * 3600 * 1000)}Z`,
            issued_at: `${isoMicros(now)}Z`,
            project: {
              id: projectId,
              name: platformCredentials.project,
              domain: { id: "default", name: platformCredentials.domain },
            },
            is_domain: false,
            roles: [
              { id: "a1b2c3d4e5f60718293a4b5c6d7e8f90", name: "admin" },
              { id: "b2c3d4e5f60718293a4b5c6d7e8f90a1", name: "member" },
              { id: "c3d4e5f60718293a4b5c6d7e8f90a1b2", name: "reader" },
            ],
            catalog: serviceCatalog(host),
          },
        };
        return Response.json(document, { status: 201, headers: { "x-subject-token": token } });
      },
      { parse: "none" },
    );
}
