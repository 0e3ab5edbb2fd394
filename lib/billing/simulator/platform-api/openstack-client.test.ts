/**
 * Debian's `openstack` client (python3-openstackclient 6.0, python3-octaviaclient for `loadbalancer`)
 * against the fake platform API (issue 30 item 3): every listing and show a user of the client starts
 * with answers, agrees with the oracle's resources live at the virtual clock, and leaves stderr empty
 * (no warning, such as the one a missing identity version document gives).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { oracleLiveAt } from "../../../../harness/simulator/oracle-live.ts";
import { parsePeriod } from "../../../foundation/time/period.ts";
import { flavors, volumeTypes } from "../catalog.ts";
import { extraTypes } from "../extra-types.ts";
import { generateMonth } from "../generate-month.ts";
import { buildOracle } from "../oracle.ts";
import { type PlatformApiServer, startPlatformApi } from "./platform-api.ts";

const period = parsePeriod("2026-10");
const month = generateMonth({
  seed: 11,
  period,
  cloud: "cloud-1",
  scale: { tenants: 4 },
  extraTypes: [...extraTypes],
});
const oracle = buildOracle(month, [], new Map());
const listed = [
  "instance",
  "volume",
  "volume_snapshot",
  "volume_backup",
  "floating_ip",
  "image",
  "loadbalancer",
];

/** The oracle's resources of `type` live at `at`, with the interval that covers it. */
function liveAt(type: string, at: string) {
  return oracleLiveAt(oracle, Date.parse(at))
    .filter(({ resource }) => resource.resource_type === type)
    .map(({ resource, interval }) => ({ id: resource.resource_id, ...interval }));
}

/** The first noon of the month at which every listed type has a live resource: no listing agrees by being empty. */
const at = (() => {
  for (let day = 2; day <= 28; day++) {
    const instant = `2026-10-${String(day).padStart(2, "0")}T12:00:00.000Z`;
    if (listed.every((type) => liveAt(type, instant).length > 0)) return instant;
  }
  throw new Error("no instant of the month has every type live");
})();

let api: PlatformApiServer;
let home: string;
beforeAll(async () => {
  api = await startPlatformApi({ month });
  api.at(Date.parse(at));
  home = mkdtempSync(join(tmpdir(), "svc-openstack-client-"));
});
afterAll(async () => {
  await api.stop();
  rmSync(home, { recursive: true, force: true });
});

/** Runs `openstack <args> -f json` as a user would, with only the OS_* variables (no clouds.yaml). */
async function openstack(args: string[]): Promise<{ json: unknown; stderr: string }> {
  const proc = Bun.spawn(["openstack", ...args, "-f", "json"], {
    env: {
      PATH: process.env.PATH ?? "/usr/bin:/bin",
      HOME: home,
      OS_AUTH_URL: `${api.url}/v3`,
      OS_IDENTITY_API_VERSION: "3",
      OS_USERNAME: api.credentials.user,
      OS_PASSWORD: api.credentials.password,
      OS_PROJECT_NAME: api.credentials.project,
      OS_USER_DOMAIN_NAME: api.credentials.domain,
      OS_PROJECT_DOMAIN_NAME: api.credentials.domain,
      OS_REGION_NAME: "RegionOne",
      OS_INTERFACE: "public",
    },
    stdout: "pipe",
    stderr: "pipe",
  });
  const [stdout, stderr, code] = await Promise.all([
    new Response(proc.stdout).text(),
    new Response(proc.stderr).text(),
    proc.exited,
  ]);
  if (code !== 0) throw new Error(`openstack ${args.join(" ")} exited ${code}: ${stderr}`);
  return { json: JSON.parse(stdout), stderr };
}

type Row = Record<string, unknown>;

async function rows(args: string[]): Promise<Row[]> {
  const { json, stderr } = await openstack(args);
  expect(stderr).toBe("");
  return json as Row[];
}

const sortById = <T extends { id: string }>(list: T[]) => [...list].sort((a, b) => (a.id < b.id ? -1 : 1));

/** nova's server status as the canonical state (an unconfirmed resize runs on its new flavor: active). */
const stateOfStatus: Record<string, string> = {
  ACTIVE: "active",
  VERIFY_RESIZE: "active",
  SHUTOFF: "shutoff",
  SHELVED: "shelved",
  SHELVED_OFFLOADED: "shelved_offloaded",
  BUILD: "build",
};

describe(`the openstack client at ${at}`, () => {
  test("server list and server show", async () => {
    const servers = await rows(["server", "list", "--all-projects"]);
    expect(
      sortById(
        servers.map((s) => ({ id: String(s.ID), state: stateOfStatus[String(s.Status)], flavor: s.Flavor })),
      ),
    ).toEqual(
      sortById(liveAt("instance", at).map((i) => ({ id: i.id, state: i.state, flavor: i.size.flavor }))),
    );
    const one = liveAt("instance", at)[0];
    if (one === undefined) throw new Error("no live instance");
    const { json, stderr } = await openstack(["server", "show", one.id]);
    expect(stderr).toBe("");
    const flavor = flavors.find((f) => f.name === one.size.flavor);
    expect(json).toMatchObject({
      id: one.id,
      project_id: one.project_id,
      flavor: `${String(one.size.flavor)} (${flavor?.id})`,
    });
    expect(stateOfStatus[String((json as Row).status)]).toBe(one.state);
  });

  test("flavor list --all and flavor show: the figures of every live instance's flavor", async () => {
    const listedFlavors = await rows(["flavor", "list", "--all"]);
    expect(listedFlavors.map((f) => f.Name).sort()).toEqual(flavors.map((f) => f.name).sort());
    for (const instance of liveAt("instance", at)) {
      const f = listedFlavors.find((row) => row.Name === instance.size.flavor);
      const figures: Row = {
        vcpus: f?.VCPUs,
        ram_gb: Number(f?.RAM) / 1024,
        disk_gb: Number(f?.Disk) + Number(f?.Ephemeral),
        flavor: f?.Name,
      };
      expect(figures).toEqual(instance.size);
    }
    const { json, stderr } = await openstack(["flavor", "show", "m1.small"]);
    expect(stderr).toBe("");
    expect(json).toMatchObject({ id: "1", name: "m1.small", vcpus: 1, ram: 2048, disk: 20, properties: {} });
  });

  test("volume list and volume type list", async () => {
    const types = await rows(["volume", "type", "list"]);
    expect(types.map((t) => ({ id: t.ID, name: t.Name }))).toEqual(volumeTypes.map((t) => ({ ...t })));
    const typeId = new Map(types.map((t) => [t.Name, t.ID]));
    const volumes = await rows(["volume", "list", "--all-projects", "--long"]);
    expect(
      sortById(
        volumes.map((v) => ({
          id: String(v.ID),
          state: v.Status,
          size_gb: v.Size,
          type: typeId.get(v.Type),
        })),
      ),
    ).toEqual(
      sortById(
        liveAt("volume", at).map((v) => ({
          id: v.id,
          state: v.state,
          size_gb: v.size.size_gb,
          type: v.size.type,
        })),
      ),
    );
  });

  test("volume snapshot list and volume backup list", async () => {
    for (const [kind, type] of [
      ["snapshot", "volume_snapshot"],
      ["backup", "volume_backup"],
    ] as const) {
      const copies = await rows(["volume", kind, "list", "--all-projects"]);
      expect(sortById(copies.map((c) => ({ id: String(c.ID), state: c.Status, size_gb: c.Size })))).toEqual(
        sortById(liveAt(type, at).map((c) => ({ id: c.id, state: c.state, size_gb: c.size.size_gb }))),
      );
    }
  });

  test("image list", async () => {
    const images = await rows(["image", "list"]);
    expect(sortById(images.map((i) => ({ id: String(i.ID), state: i.Status })))).toEqual(
      sortById(liveAt("image", at).map((i) => ({ id: i.id, state: i.state }))),
    );
  });

  test("floating ip list and network list: every address on a listed network", async () => {
    const addresses = await rows(["floating", "ip", "list"]);
    expect(sortById(addresses.map((a) => ({ id: String(a.ID), project_id: a.Project })))).toEqual(
      sortById(liveAt("floating_ip", at).map((a) => ({ id: a.id, project_id: a.project_id }))),
    );
    const networks = await rows(["network", "list"]);
    const ids = new Set(networks.map((n) => n.ID));
    expect(addresses.filter((a) => !ids.has(a["Floating Network"]))).toEqual([]);
  });

  test("loadbalancer list", async () => {
    const balancers = await rows(["loadbalancer", "list"]);
    expect(
      sortById(
        balancers.map((b) => ({
          id: String(b.id),
          state: String(b.provisioning_status).toLowerCase(),
          project_id: b.project_id,
        })),
      ),
    ).toEqual(
      sortById(
        liveAt("loadbalancer", at).map((b) => ({ id: b.id, state: b.state, project_id: b.project_id })),
      ),
    );
  });
});
