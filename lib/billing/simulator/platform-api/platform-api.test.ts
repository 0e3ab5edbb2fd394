import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { JsonObject } from "../../../foundation/json/json-value.ts";
import { parsePeriod } from "../../../foundation/time/period.ts";
import { instanceState } from "../../oslo/nova.ts";
import { generateMonth } from "../generate-month.ts";
import { monthStream } from "../month-stream.ts";
import { buildOracle, type Oracle } from "../oracle.ts";
import { type PlatformApiServer, startPlatformApi } from "./platform-api.ts";

const period = parsePeriod("2026-10");
const month = generateMonth({ seed: 7, period, cloud: "cloud-1", scale: { tenants: 4 } });
const oracle: Oracle = buildOracle(month, [], monthStream(month, []).marks);
let api: PlatformApiServer;
let token: string;

async function authenticate(password: string = api.credentials.password): Promise<Response> {
  return fetch(`${api.url}/v3/auth/tokens`, {
    method: "POST",
    headers: { "content-type": "application/json", host: "cloud.example:5000" },
    body: JSON.stringify({
      auth: {
        identity: {
          methods: ["password"],
          password: { user: { name: api.credentials.user, domain: { name: "Default" }, password } },
        },
        scope: { project: { name: api.credentials.project, domain: { name: "Default" } } },
      },
    }),
  });
}

async function get(path: string, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(`${api.url}${path}`, { headers: { "x-auth-token": token, ...headers } });
}

async function json(path: string, headers: Record<string, string> = {}): Promise<JsonObject> {
  const response = await get(path, headers);
  expect(response.status).toBe(200);
  return (await response.json()) as JsonObject;
}

beforeAll(async () => {
  api = await startPlatformApi({ month });
  const response = await authenticate();
  token = response.headers.get("x-subject-token") ?? "";
});

afterAll(async () => {
  await api.stop();
});

interface Seen {
  resource_type: string;
  resource_id: string;
  state: string;
  project_id: string;
  size: JsonObject;
}

type Item = Record<string, unknown>;

/** Reads every listing at the clock's instant into canonical terms, as a reconciliation would. */
async function listings(): Promise<Seen[]> {
  const seen: Seen[] = [];
  const servers = (await json("/compute/v2.1/servers/detail", { "openstack-api-version": "compute 2.47" }))
    .servers as Item[];
  for (const s of servers) {
    const flavor = s.flavor as Item;
    seen.push({
      resource_type: "instance",
      resource_id: String(s.id),
      state: instanceState(String(s["OS-EXT-STS:vm_state"])),
      project_id: String(s.tenant_id),
      size: {
        vcpus: Number(flavor.vcpus),
        ram_gb: Number(flavor.ram) / 1024,
        disk_gb: Number(flavor.disk) + Number(flavor.ephemeral),
        flavor: String(flavor.original_name),
      },
    });
  }
  for (const v of (await json("/volume/v3/volumes/detail")).volumes as Item[]) {
    seen.push({
      resource_type: "volume",
      resource_id: String(v.id),
      state: String(v.status),
      project_id: String(v["os-vol-tenant-attr:tenant_id"]),
      size: { size_gb: Number(v.size), type: String(v.volume_type_id) },
    });
  }
  for (const f of (await json("/network/v2.0/floatingips")).floatingips as Item[]) {
    seen.push({
      resource_type: "floating_ip",
      resource_id: String(f.id),
      state: String(f.status).toLowerCase(),
      project_id: String(f.project_id),
      size: { ip_version: String(f.floating_ip_address).includes(":") ? 6 : 4 },
    });
  }
  let next: string | null = "/v2/images?limit=3";
  while (next !== null) {
    const page: JsonObject = await json(`/image${next}`);
    for (const i of page.images as Item[]) {
      seen.push({
        resource_type: "image",
        resource_id: String(i.id),
        state: String(i.status),
        project_id: String(i.owner),
        size: { size_gb: Number(i.size ?? 0) / 1024 ** 3, disk_format: String(i.disk_format) },
      });
    }
    next = typeof page.next === "string" ? page.next : null;
  }
  for (const l of (await json("/load-balancer/v2.0/lbaas/loadbalancers")).loadbalancers as Item[]) {
    seen.push({
      resource_type: "loadbalancer",
      resource_id: String(l.id),
      state: String(l.provisioning_status).toLowerCase(),
      project_id: String(l.project_id),
      size: {
        listeners: (l.listeners as unknown[]).length,
        pools: (l.pools as unknown[]).length,
        ...(typeof l.flavor_id === "string" ? { flavor: l.flavor_id } : {}),
      },
    });
  }
  return seen.sort((a, b) =>
    a.resource_type === b.resource_type
      ? a.resource_id.localeCompare(b.resource_id)
      : a.resource_type.localeCompare(b.resource_type),
  );
}

/** What the oracle says is live at `at`. */
function oracleAt(at: number): Seen[] {
  const out: Seen[] = [];
  for (const r of oracle.resources) {
    const interval = r.intervals.find((i) => Date.parse(i.from) <= at && at < Date.parse(i.to));
    if (interval === undefined) continue;
    out.push({
      resource_type: r.resource_type,
      resource_id: r.resource_id,
      state: interval.state,
      project_id: interval.project_id,
      size: interval.size,
    });
  }
  return out.sort((a, b) =>
    a.resource_type === b.resource_type
      ? a.resource_id.localeCompare(b.resource_id)
      : a.resource_type.localeCompare(b.resource_type),
  );
}

describe("the fake platform API against the oracle", () => {
  test("every listing agrees with the oracle's live resources at several instants", async () => {
    const from = Date.parse(period.from);
    const to = Date.parse(period.to);
    // Instants spread over the month, and instants exactly on booked transitions.
    const instants = Array.from({ length: 9 }, (_, i) => from + Math.floor(((to - from) * i) / 9) + 1);
    for (const r of oracle.resources.slice(0, 40)) {
      const first = r.intervals[1]?.from;
      if (first !== undefined) instants.push(Date.parse(first));
    }
    const types = new Set<string>();
    for (const at of instants.sort((a, b) => a - b)) {
      api.at(at);
      const seen = await listings();
      expect({ at: new Date(at).toISOString(), seen }).toEqual({
        at: new Date(at).toISOString(),
        seen: oracleAt(at),
      });
      for (const s of seen) types.add(s.resource_type);
    }
    expect([...types].sort()).toEqual(["floating_ip", "image", "instance", "loadbalancer", "volume"]);
  });

  test("a resize awaiting confirmation shows as VERIFY_RESIZE on the new flavor", async () => {
    const resizing = month.resources.find((r) =>
      r.steps.some((s) => s.event_type === "compute.instance.finish_resize.end"),
    );
    const finish = resizing?.steps.find((s) => s.event_type === "compute.instance.finish_resize.end");
    if (resizing === undefined || finish === undefined) throw new Error("the month has no resize");
    api.at(finish.at);
    const servers = (await json("/compute/v2.1/servers/detail", { "openstack-api-version": "compute 2.47" }))
      .servers as Item[];
    const server = servers.find((s) => s.id === resizing.resource_id);
    expect(server?.status).toBe("VERIFY_RESIZE");
    expect((server?.flavor as Item | undefined)?.original_name).toBe(String(finish.truth?.size.flavor));
  });
});

describe("the fake platform API as a client meets it", () => {
  test("the token comes with a catalog built from the Host header, and times of the wall clock", async () => {
    const response = await authenticate();
    expect(response.status).toBe(201);
    expect(response.headers.get("x-subject-token")).toBe(api.token);
    const body = (await response.json()) as { token: { catalog: Item[]; expires_at: string } };
    const compute = body.token.catalog.find((c) => c.type === "compute") as { endpoints: Item[] };
    expect(compute.endpoints.map((e) => e.url)).toEqual([
      "http://cloud.example:5000/compute/v2.1",
      "http://cloud.example:5000/compute/v2.1",
      "http://cloud.example:5000/compute/v2.1",
    ]);
    expect(body.token.catalog.map((c) => c.type)).toEqual([
      "identity",
      "compute",
      "volumev3",
      "block-storage",
      "network",
      "image",
      "load-balancer",
    ]);
    expect(Date.parse(body.token.expires_at)).toBeGreaterThan(Date.now());
  });

  test("version documents: compute reaches past microversion 2.47", async () => {
    const compute = (await json("/compute/v2.1/")).version as Item;
    expect(compute).toMatchObject({ id: "v2.1", min_version: "2.1", status: "CURRENT" });
    expect(Number(String(compute.version).split(".")[1])).toBeGreaterThan(47);
    expect(((await json("/image/")).versions as Item[])[0]?.status).toBe("CURRENT");
    expect(((await json("/network/")).versions as Item[])[0]?.id).toBe("v2.0");
    expect(((await json("/load-balancer/")).versions as Item[]).length).toBeGreaterThan(0);
  });

  test("flavors and volume types are the fixed catalog; below 2.47 a server names its flavor by id", async () => {
    const flavors = (await json("/compute/v2.1/flavors/detail")).flavors as Item[];
    expect(flavors.map((f) => f.name)).toEqual([
      "m1.small",
      "m1.medium",
      "m1.large",
      "m1.xlarge",
      "c1.large",
      "r1.large",
    ]);
    const types = (await json("/volume/v3/types")).volume_types as Item[];
    expect(types.map((t) => [t.name, t.id])).toEqual([
      ["ssd", "5f3c2a8e-1b7d-4c1e-9a53-0d6f4b2e8c11"],
      ["hdd", "a1d9e4b2-6c3f-4f8a-b7e0-2c5d8f1a9b22"],
      ["standard", "c7b2f5d1-8e4a-4d6b-a9c3-4e7f0b3d6c33"],
    ]);
    api.at(Date.parse("2026-10-20T00:00:00Z"));
    const response = await get("/compute/v2.1/servers/detail");
    expect(response.headers.get("openstack-api-version")).toBe("compute 2.1");
    const server = ((await response.json()) as { servers: Item[] }).servers[0] as Item;
    expect(Object.keys(server.flavor as Item).sort()).toEqual(["id", "links"]);
  });

  test("deleted=true with changes-since lists the servers destroyed in that window", async () => {
    const deletes = month.resources.flatMap((r) =>
      r.resource_type === "instance"
        ? r.steps
            .filter((s) => s.event_type === "compute.instance.delete.end")
            .map((s) => ({ id: r.resource_id, at: s.at }))
        : [],
    );
    const at = Date.parse("2026-10-20T00:00:00Z");
    const since = at - 5 * 24 * 3600 * 1000;
    api.at(at);
    const expected = deletes
      .filter((d) => d.at >= since && d.at <= at)
      .map((d) => d.id)
      .sort();
    expect(expected.length).toBeGreaterThan(0);
    const query = `deleted=true&changes-since=${encodeURIComponent(new Date(since).toISOString())}`;
    const servers = (await json(`/compute/v2.1/servers/detail?${query}`)).servers as Item[];
    expect(servers.map((s) => s.id).sort()).toEqual(expected);
    expect(new Set(servers.map((s) => s.status))).toEqual(new Set(["DELETED"]));
  });

  test("listeners and pools a test adds show from the instant they were added, in every listing", async () => {
    const fresh = await startPlatformApi({ month });
    try {
      const at = Date.parse("2026-10-20T00:00:00Z");
      fresh.at(at);
      const list = async (path: string) => {
        const response = await fetch(`${fresh.url}/load-balancer/v2.0/lbaas/${path}`, {
          headers: { "x-auth-token": fresh.token },
        });
        return (await response.json()) as Record<string, Item[]>;
      };
      const before = (await list("loadbalancers")).loadbalancers as Item[];
      const lb = before[0] as Item;
      expect([lb.listeners, lb.pools, (await list("listeners")).listeners]).toEqual([[], [], []]);
      fresh.setLoadBalancerMembers(String(lb.id), { listeners: 2, pools: 1 });
      const after = ((await list("loadbalancers")).loadbalancers as Item[]).find((l) => l.id === lb.id) ?? {};
      const shownListeners = after.listeners as Item[];
      const shownPools = after.pools as Item[];
      expect([shownListeners.length, shownPools.length]).toEqual([2, 1]);
      expect(after.updated_at).toBe("2026-10-20T00:00:00");
      const listeners = (await list("listeners")).listeners as Item[];
      expect(listeners.map((l) => l.id)).toEqual(shownListeners.map((l) => l.id));
      expect(listeners.map((l) => l.loadbalancers)).toEqual([[{ id: lb.id }], [{ id: lb.id }]]);
      expect(((await list("pools")).pools as Item[]).map((p) => p.id)).toEqual(shownPools.map((p) => p.id));
      fresh.at(at - 1);
      const earlier = ((await list("loadbalancers")).loadbalancers as Item[]).find((l) => l.id === lb.id);
      expect(earlier?.listeners).toEqual([]);
    } finally {
      await fresh.stop();
    }
  });

  test("PUT /load-balancer-members/{id} sets listeners and pools from the instant reached; a later setting leaves the earlier before it", async () => {
    const fresh = await startPlatformApi({ month });
    try {
      const at = Date.parse("2026-10-20T00:00:00Z");
      const lbs = async () =>
        ((
          (await (
            await fetch(`${fresh.url}/load-balancer/v2.0/lbaas/loadbalancers`, {
              headers: { "x-auth-token": fresh.token },
            })
          ).json()) as Record<string, Item[]>
        ).loadbalancers ?? []) as Item[];
      fresh.at(at);
      const id = String((await lbs())[0]?.id);
      const put = (counts: object) =>
        fetch(`${fresh.url}/load-balancer-members/${id}`, { method: "PUT", body: JSON.stringify(counts) });
      const set = await put({ listeners: 2, pools: 1 });
      expect([set.status, await set.json()]).toEqual([
        200,
        { loadbalancer_id: id, listeners: 2, pools: 1, from: "2026-10-20T00:00:00.000Z" },
      ]);
      fresh.at(at + 3_600_000);
      expect((await put({ listeners: 3, pools: 0 })).status).toBe(200);
      const shown = async (ms: number) => {
        fresh.at(ms);
        const lb = (await lbs()).find((l) => l.id === id) ?? {};
        return [(lb.listeners as Item[]).length, (lb.pools as Item[]).length];
      };
      expect([await shown(at - 1), await shown(at), await shown(at + 3_600_000)]).toEqual([
        [0, 0],
        [2, 1],
        [3, 0],
      ]);
    } finally {
      await fresh.stop();
    }
  });

  test("documents stand at the month's end once the clock has passed it", async () => {
    api.at(Date.parse("2026-12-15T00:00:00Z"));
    const end = Date.parse(period.to);
    expect((await listings()).length).toBe(oracleAt(end - 1).length);
  });
});

describe("fake platform API refusals", () => {
  test("a wrong password and a missing or foreign token are 401", async () => {
    expect((await authenticate("wrong")).status).toBe(401);
    const attempts: Record<string, string>[] = [{}, { "x-auth-token": "0123" }];
    for (const headers of attempts) {
      const response = await fetch(`${api.url}/compute/v2.1/servers/detail`, { headers });
      expect(response.status).toBe(401);
      expect(await response.json()).toMatchObject({ error: { code: 401, title: "Unauthorized" } });
    }
  });

  test("a token of another run is refused", async () => {
    const other = await startPlatformApi({ month });
    try {
      const response = await fetch(`${other.url}/volume/v3/types`, { headers: { "x-auth-token": token } });
      expect(response.status).toBe(401);
    } finally {
      await other.stop();
    }
  });

  test("changes-since that is not RFC 3339 is 400 with the stated message", async () => {
    const response = await get("/compute/v2.1/servers/detail?deleted=true&changes-since=yesterday");
    expect(response.status).toBe(400);
    expect(await response.json()).toEqual({
      badRequest: { code: 400, message: "changes-since must be an RFC 3339 instant" },
    });
  });

  test("PUT /load-balancer-members refuses a bad body (400), a load balancer not live (404) and a browser (403)", async () => {
    api.at(Date.parse("2026-10-20T00:00:00Z"));
    const live = ((await json("/load-balancer/v2.0/lbaas/loadbalancers")).loadbalancers as Item[])[0] as Item;
    const put = (id: string, body: string, headers: Record<string, string> = {}) =>
      fetch(`${api.url}/load-balancer-members/${id}`, { method: "PUT", body, headers });
    for (const body of [
      "",
      "[]",
      '{"listeners": 1}',
      '{"listeners": -1, "pools": 0}',
      '{"listeners": 1.5, "pools": 0}',
      '{"listeners": 101, "pools": 0}',
      '{"listeners": 1, "pools": 1, "members": 2}',
    ]) {
      const response = await put(String(live.id), body);
      expect([body, response.status]).toEqual([body, 400]);
    }
    const unknown = await put("00000000-0000-4000-8000-000000000000", '{"listeners": 1, "pools": 1}');
    expect(unknown.status).toBe(404);
    const browser = await put(String(live.id), '{"listeners": 1, "pools": 1}', {
      origin: "http://evil.example",
    });
    expect(browser.status).toBe(403);
    const shown = ((await json("/load-balancer/v2.0/lbaas/loadbalancers")).loadbalancers as Item[]).find(
      (l) => l.id === live.id,
    );
    expect(shown?.listeners).toEqual([]);
  });

  test("a microversion out of range is 406; an unknown path 404", async () => {
    const response = await get("/compute/v2.1/servers/detail", { "openstack-api-version": "compute 3.0" });
    expect(response.status).toBe(406);
    expect((await get("/compute/v2.1/hypervisors")).status).toBe(404);
  });
});
