import { describe, expect, test } from "bun:test";
import { octoberPlatformApiOfFile } from "../../../../../harness/reporting/october-platform-api.ts";
import { Secret } from "../../../../foundation/config/secret.ts";
import type { PasswordCloud } from "./clouds-yaml.ts";
import { authenticate, endpointOf } from "./keystone.ts";

const api = octoberPlatformApiOfFile({ seed: 7, tenants: 1 });

const cloudOf = (password: string): PasswordCloud => ({
  authUrl: `${api.url}/v3`,
  user: { name: api.credentials.user, domain: { name: api.credentials.domain } },
  password: new Secret(password),
  project: { name: api.credentials.project, domain: { name: api.credentials.domain } },
  region: "RegionOne",
  interface: "public",
  verify: true,
  cacert: null,
});

describe("identity v3 password authentication against the fake platform API", () => {
  test("the run's token and a catalog naming every service", async () => {
    const session = await authenticate(cloudOf(api.credentials.password), {
      signal: AbortSignal.timeout(5000),
    });
    expect(session.token).toBe(api.token);
    const where = { interface: "public", region: "RegionOne" };
    expect(endpointOf(session, ["compute"], where)).toBe(`${api.url}/compute/v2.1`);
    expect(endpointOf(session, ["block-storage", "volumev3"], where)).toBe(`${api.url}/volume/v3`);
    expect(endpointOf(session, ["load-balancer"], where)).toBe(`${api.url}/load-balancer`);
    expect(endpointOf(session, ["compute"], { interface: "public", region: "Elsewhere" })).toBeNull();
    expect(endpointOf(session, ["object-store"], where)).toBeNull();
  });

  test("a refused password is an error naming the status, not the password", async () => {
    const refused = authenticate(cloudOf("wrong-password"), { signal: AbortSignal.timeout(5000) });
    await expect(refused).rejects.toThrow(
      `the identity service at ${api.url}/v3 refused the credentials (401)`,
    );
  });

  test("an identity service that does not answer", async () => {
    const down = { ...cloudOf("x"), authUrl: "http://127.0.0.1:9/v3" };
    await expect(authenticate(down, { signal: AbortSignal.timeout(5000) })).rejects.toThrow("did not answer");
  });
});
