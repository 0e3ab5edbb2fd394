// Issue 28 items 8-10 against the harness's OVN: text ovsdb-server cannot take and plans its schema
// forbids are refused with the member named before anything is sent, so the northbound database is
// byte for byte as it was (read back with ovsdb-client) and netview's NB session never drops; an
// update may target a row the same plan inserts (`@ref`).
import { beforeAll, describe, expect, test } from "bun:test";
import { routeTestForFile } from "../../../../harness/netview/route-test.ts";
import { type Answer, send } from "../../../../harness/netview/send.ts";
import { eventually, nbDump } from "../../../../harness/netview/test-support.ts";
import type { Plan } from "./plan.ts";

let aclUuid = "";
let addressSetUuid = "";
let syncs: { nb: number; sb: number };

/** A body sent as these bytes with this content type, not as JSON. */
class Raw {
  constructor(
    readonly bytes: string | Uint8Array,
    readonly type = "application/json",
  ) {}
}

const call = (method: string, path: string, body?: unknown) =>
  send(
    fx().app,
    method,
    path,
    body instanceof Raw ? { body: body.bytes, type: body.type } : { body },
  ) as Promise<Answer<Record<string, unknown>>>;

const auditCount = async () =>
  ((await call("GET", "/api/v1/write/audit?limit=1000")).body as unknown as []).length;

const fx = routeTestForFile({
  prepare: async (ovn) => {
    await ovn.nbctl(["ls-add", "nvr-sw0", "--", "lsp-add", "nvr-sw0", "nvr-p0"]);
    aclUuid = (
      await ovn.nbctl([
        "--id=@a",
        "create",
        "ACL",
        "direction=to-lport",
        "priority=1001",
        'match="ip4.src == 10.67.0.1"',
        "action=drop",
        "--",
        "add",
        "Logical_Switch",
        "nvr-sw0",
        "acls",
        "@a",
      ])
    ).trim();
    addressSetUuid = (
      await ovn.nbctl(["create", "Address_Set", "name=nvr_as0", 'addresses="10.67.0.1"'])
    ).trim();
    await ovn.nbctl([
      "lr-add",
      "nvr-lr0",
      "--",
      "lrp-add",
      "nvr-lr0",
      "nvr-lrp0",
      "00:00:00:00:fe:02",
      "172.30.0.1/24",
    ]);
    await ovn.nbctl(["lrp-set-gateway-chassis", "nvr-lrp0", ovn.chassis[0]?.systemId ?? "c1", "20"]);
    await ovn.nbctl(["ha-chassis-group-add", "nvr-hag0"]);
    await ovn.nbctl(["ha-chassis-group-add-chassis", "nvr-hag0", ovn.chassis[0]?.systemId ?? "c1", "30"]);
  },
  opsOptions: { writeEnabled: true },
  settings: { writeEnabled: true },
  cleanup: async (ovn) => {
    await ovn.nbctl(["--if-exists", "ls-del", "nvr-sw0"]);
    await ovn.nbctl(["--if-exists", "ls-del", "nvr-new"]);
    await ovn.nbctl(["--if-exists", "lr-del", "nvr-lr0"]);
    await ovn.nbctl(["--if-exists", "destroy", "HA_Chassis_Group", "nvr-hag0"]);
    await ovn.nbctl(["--if-exists", "destroy", "Address_Set", addressSetUuid]);
  },
});

beforeAll(async () => {
  await eventually(() => {
    expect(fx().clusters.defaultCluster.nb.cache.get("ACL", aclUuid)).toBeDefined();
    expect(fx().clusters.defaultCluster.nb.cache.get("Address_Set", addressSetUuid)).toBeDefined();
    expect(
      fx()
        .clusters.defaultCluster.nb.cache.rows("HA_Chassis_Group")
        .some((r) => r.name === "nvr-hag0"),
    ).toBe(true);
  });
  syncs = { nb: fx().clusters.defaultCluster.nb.syncs, sb: fx().clusters.defaultCluster.sb.syncs };
}, 60_000);

/** Sends each request, expects its exact answer, and that the NB, the audit and netview's sessions are untouched. */
async function refused(requests: [string, string, unknown, number, string][]) {
  const before = await nbDump(fx().ovn);
  const audited = await auditCount();
  for (const [method, path, body, status, error] of requests) {
    const answer = await call(method, path, body);
    expect([method, path, answer.status, answer.body]).toEqual([method, path, status, { error }]);
    expect(answer.headers.get("x-netview-stale")).toBeNull();
  }
  expect(await nbDump(fx().ovn)).toBe(before);
  expect(await auditCount()).toBe(audited);
  const cluster = fx().clusters.defaultCluster;
  expect([cluster.nb.state, cluster.nb.syncs, cluster.sb.syncs]).toEqual(["synced", syncs.nb, syncs.sb]);
  const read = await call("GET", "/api/v1/nb/logical-switches");
  expect([read.status, read.headers.get("x-netview-stale")]).toEqual([200, null]);
}

const insertSwitch = (name: unknown) => ({
  operations: [{ op: "insert", table: "Logical_Switch", row: { name } }],
});

describe("item 8: text ovsdb-server cannot take is refused before it is sent", () => {
  test("NUL and lone surrogates in any string of preview, dry-run and the actions: 400 naming the member", async () => {
    const nul = "invalid body: operations.0.row.name: must not contain the NUL character";
    const surrogate = "must be well-formed Unicode (a lone UTF-16 surrogate cannot be stored)";
    await refused([
      ["POST", "/api/v1/write/dry-run", insertSwitch("a\u0000b"), 400, nul],
      ["POST", "/api/v1/write/preview", insertSwitch("a\u0000b"), 400, nul],
      // Sent as the escape text a client would write, so JSON.parse makes the lone surrogate.
      [
        "POST",
        "/api/v1/write/dry-run",
        '{"operations":[{"op":"insert","table":"Logical_Switch","row":{"name":"x\\ud800"}}]}',
        400,
        `invalid body: operations.0.row.name: ${surrogate}`,
      ],
      [
        "POST",
        "/api/v1/write/preview",
        {
          operations: [
            {
              op: "update",
              table: "Logical_Switch",
              name: "nvr-sw0",
              set: { external_ids: { "k\udfff": "v" } },
            },
          ],
        },
        400,
        `invalid body: operations.0.set.external_ids.k\\udfff: has a member name that ${surrogate}`,
      ],
      [
        "POST",
        "/api/v1/write/dry-run",
        { description: "\u0000", operations: insertSwitch("ok").operations },
        400,
        "invalid body: description: must not contain the NUL character",
      ],
      [
        "POST",
        "/api/v1/write/failover",
        { router_port: "nvr-lrp0\u0000" },
        400,
        "invalid body: router_port: must not contain the NUL character",
      ],
      ["POST", "/api/v1/write/restore", { snapshot: "\ud800" }, 400, `invalid body: snapshot: ${surrogate}`],
      [
        "POST",
        "/api/v1/snapshots/import",
        {
          format: "netview-snapshot",
          version: 1,
          databases: {
            nb: {
              schema: { name: "OVN_Northbound", version: "7.0.0" },
              tables: { Logical_Switch: [{ _uuid: "11111111-1111-1111-1111-111111111111", name: "\u0000" }] },
            },
            sb: { schema: { name: "OVN_Southbound", version: "20.27.0" }, tables: {} },
          },
        },
        400,
        "invalid snapshot: databases.nb.tables.Logical_Switch.0.name: must not contain the NUL character",
      ],
    ]);
  }, 60_000);
});

describe("bodies, read by the foundation's JSON body reader on every route", () => {
  test("another media type, too large, too deep, not UTF-8, not JSON: refused before anything is read into a plan", async () => {
    const plan = JSON.stringify(insertSwitch("ok"));
    await refused([
      [
        "POST",
        "/api/v1/write/preview",
        new Raw(plan, "text/plain"),
        415,
        "the body must be JSON (Content-Type: application/json)",
      ],
      [
        "POST",
        "/api/v1/write/dry-run",
        new Raw(`{"description": "${"d".repeat(4 * 1024 * 1024)}", "operations": []}`),
        413,
        "a body holds at most 4194304 bytes",
      ],
      [
        "POST",
        "/api/v1/write/preview",
        new Raw(`${"[".repeat(33)}${"]".repeat(33)}`),
        400,
        "the request body nests deeper than 32 levels",
      ],
      [
        "POST",
        "/api/v1/alerts/silences",
        new Raw(new Uint8Array([0x7b, 0x22, 0xff, 0x22, 0x3a, 0x31, 0x7d])),
        400,
        "the request body is not UTF-8",
      ],
      ["POST", "/api/v1/write/failover", new Raw("{"), 400, "the request body is not JSON"],
    ]);
  }, 60_000);
});

describe("item 9: what the NB schema forbids is refused at preview and dry-run, with the member named", () => {
  test("an enum, an integer range, a string length: 400", async () => {
    const update = (set: Record<string, unknown>) => ({
      operations: [{ op: "update", table: "ACL", uuid: aclUuid, set }],
    });
    const requests: [string, string, unknown, number, string][] = [];
    for (const route of ["/api/v1/write/preview", "/api/v1/write/dry-run"]) {
      requests.push(
        [
          "POST",
          route,
          update({ direction: "sideways" }),
          400,
          "invalid operations: operations[0].set.direction: must be one of from-lport, to-lport",
        ],
        [
          "POST",
          route,
          update({ priority: 99999 }),
          400,
          "invalid operations: operations[0].set.priority: must be an integer from 0 to 32767",
        ],
        [
          "POST",
          route,
          update({ name: "n".repeat(64) }),
          400,
          "invalid operations: operations[0].set.name: must be at most 63 characters long",
        ],
        [
          "POST",
          route,
          {
            operations: [
              {
                op: "insert",
                table: "ACL",
                row: { direction: "both", priority: -1, action: "nope", match: "1" },
              },
            ],
          },
          400,
          "invalid operations: operations[0].row.direction: must be one of from-lport, to-lport; operations[0].row.priority: must be an integer from 0 to 32767; operations[0].row.action: must be one of allow, allow-related, allow-stateless, drop, reject",
        ],
      );
    }
    await refused(requests);
  }, 60_000);

  test("a second Address_Set with an existing name, a second NB_Global: 409", async () => {
    await refused([
      [
        "POST",
        "/api/v1/write/preview",
        { operations: [{ op: "insert", table: "Address_Set", row: { name: "nvr_as0" } }] },
        409,
        `conflicting operations: operations[0].row.name: Address_Set row ${addressSetUuid} has the same name (unique in the schema)`,
      ],
      [
        "POST",
        "/api/v1/write/dry-run",
        { operations: [{ op: "insert", table: "NB_Global", row: { external_ids: { a: "b" } } }] },
        409,
        "conflicting operations: operations[0].row: NB_Global holds at most 1 row",
      ],
    ]);
  }, 60_000);

  test("a failover naming both a router port and an HA chassis group: 400", async () => {
    await refused([
      [
        "POST",
        "/api/v1/write/failover",
        { router_port: "nvr-lrp0", ha_chassis_group: "nvr-hag0" },
        400,
        "invalid body: router_port, ha_chassis_group: name one of them, not both",
      ],
    ]);
  }, 60_000);
});

describe("item 10: an update may target a row inserted earlier in the same plan", () => {
  test('"uuid": "@ls" is that row: preview, dry-run and apply, as ovn-nbctl then shows', async () => {
    const body = {
      operations: [
        { op: "insert", table: "Logical_Switch", ref: "ls", row: { name: "nvr-new" } },
        {
          op: "update",
          table: "Logical_Switch",
          uuid: "@ls",
          set: { other_config: { subnet: "10.68.0.0/24" } },
        },
      ],
    };
    const dry = await call("POST", "/api/v1/write/dry-run", body);
    expect([dry.status, (dry.body as unknown as Plan).server_checked]).toEqual([201, true]);
    const preview = await call("POST", "/api/v1/write/preview", body);
    expect(preview.status).toBe(201);
    const plan = preview.body as unknown as Plan;
    expect(plan.effect.Logical_Switch?.inserted).toMatchObject([
      { _uuid: "@ls", name: "nvr-new", other_config: { subnet: "10.68.0.0/24" } },
    ]);
    expect(plan.effect.Logical_Switch?.updated).toEqual([]);
    expect(
      (await fx().ovn.nbctl(["--bare", "--columns=name", "find", "Logical_Switch", "name=nvr-new"])).trim(),
    ).toBe("");
    const applied = await call("POST", `/api/v1/write/plans/${plan.id}/apply`);
    expect([applied.status, (applied.body as unknown as Plan).state]).toEqual([200, "applied"]);
    expect((await fx().ovn.nbctl(["get", "Logical_Switch", "nvr-new", "other_config:subnet"])).trim()).toBe(
      '"10.68.0.0/24"',
    );
    const inserted = (applied.body as unknown as Plan).result?.inserted.ls ?? "none";
    expect(
      (await fx().ovn.nbctl(["--bare", "--columns=_uuid", "find", "Logical_Switch", "name=nvr-new"])).trim(),
    ).toBe(inserted);
  }, 60_000);
});
