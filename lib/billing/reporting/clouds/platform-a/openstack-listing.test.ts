import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { parsePeriod } from "../../../../foundation/time/period.ts";
import { generateMonth } from "../../../simulator/generate-month.ts";
import { type PlatformApiServer, startPlatformApi } from "../../../simulator/platform-api/platform-api.ts";
import { listAll } from "./openstack-listing.ts";

let api: PlatformApiServer;
beforeAll(async () => {
  const month = generateMonth({
    seed: 7,
    period: parsePeriod("2026-10"),
    cloud: "cloud-1",
    scale: { tenants: 4 },
  });
  api = await startPlatformApi({ month });
  api.at(Date.parse("2026-10-20T00:00:00Z"));
});
afterAll(async () => {
  await api.stop();
});

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
