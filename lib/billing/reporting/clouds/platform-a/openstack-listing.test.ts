import { describe, expect, test } from "bun:test";
import { octoberPlatformApiOfFile } from "../../../../../harness/reporting/october-platform-api.ts";
import { listAll } from "./openstack-listing.ts";

const api = octoberPlatformApiOfFile({ seed: 7, tenants: 4, at: "2026-10-20T00:00:00Z" });

const signal = () => AbortSignal.timeout(10_000);

describe("listAll against the fake platform API", () => {
  test("pages of any size give the same items as one page, for every link form", async () => {
    for (const [path, key] of [
      ["/compute/v2.1/servers/detail", "servers"],
      ["/volume/v3/volumes/detail", "volumes"],
      ["/network/v2.0/floatingips", "floatingips"],
      ["/image/v2/images", "images"],
      ["/load-balancer/v2.0/lbaas/loadbalancers", "loadbalancers"],
    ] as const) {
      const url = `${api.url}${path}`;
      const whole = await listAll({ url, key, token: api.token, signal: signal(), limit: 1000 });
      const paged = await listAll({ url, key, token: api.token, signal: signal(), limit: 2 });
      expect(whole.length).toBeGreaterThan(0);
      expect(paged.map((i) => i.id)).toEqual(whole.map((i) => i.id));
    }
  });

  test("a refused token names the listing and the status", async () => {
    const url = `${api.url}/compute/v2.1/servers/detail`;
    await expect(listAll({ url, key: "servers", token: "nope", signal: signal() })).rejects.toThrow(
      `GET ${url} answered 401`,
    );
  });
});
