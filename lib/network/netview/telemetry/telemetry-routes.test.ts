// Telemetry against the harness's OVN, checked with ovn-nbctl and ovn-sbctl: counts, logical flows,
// nb_cfg where it is, a generation's travel after `ovn-nbctl --wait=hv sync`, raft answers, and the
// same figures on /metrics.
import { describe, expect, test } from "bun:test";
import { routeTestForFile } from "../../../../harness/netview/route-test.ts";
import { type Answer, send } from "../../../../harness/netview/send.ts";
import { eventually } from "../../../../harness/netview/test-support.ts";
import { compare } from "../../../foundation/collections/compare.ts";
import type { TimelineEntry } from "./propagation-tracker.ts";

const fx = routeTestForFile({
  prepare: async (ovn) => {
    await ovn.nbctl(["ls-add", "nvt-sw0", "--", "lsp-add", "nvt-sw0", "nvt-p0", "--", "lr-add", "nvt-lr0"]);
    await ovn.nbctl(["--wait=hv", "sync"]);
  },
  ops: { raftProbeMs: 500 },
  metrics: true,
  cleanup: (ovn) => ovn.nbctl(["--if-exists", "ls-del", "nvt-sw0", "--", "--if-exists", "lr-del", "nvt-lr0"]),
});

const get = (path: string) => send(fx().app, "GET", path) as Promise<Answer<Record<string, never>>>;

const count = async (ctl: (a: string[]) => Promise<string>, table: string, ...where: string[]) =>
  (
    await ctl([
      "--bare",
      "--columns=_uuid",
      ...(where.length > 0 ? ["find", table, ...where] : ["list", table]),
    ])
  )
    .split("\n")
    .filter((l) => l !== "").length;

describe("telemetry", () => {
  test("summary counts what ovn-nbctl and ovn-sbctl list", async () => {
    await eventually(async () => {
      const s = (await get("/api/v1/telemetry/summary")).body as unknown as {
        nb: { rows: Record<string, number> };
        sb: { rows: Record<string, number> };
        chassis: Record<string, number>;
        propagation: Record<string, number>;
      };
      expect(s.nb.rows.Logical_Switch).toBe(await count(fx().ovn.nbctl, "Logical_Switch"));
      expect(s.nb.rows.Logical_Switch_Port).toBe(await count(fx().ovn.nbctl, "Logical_Switch_Port"));
      expect(s.sb.rows.Logical_Flow).toBe(await count(fx().ovn.sbctl, "Logical_Flow"));
      expect(s.sb.rows.Chassis).toBe(fx().ovn.chassis.length);
      expect(s.chassis).toMatchObject({
        total: fx().ovn.chassis.length,
        alive: fx().ovn.chassis.length,
        in_sync: fx().ovn.chassis.length,
      });
      expect(s.propagation.nb_cfg).toBe(
        Number((await fx().ovn.nbctl(["get", "NB_Global", ".", "nb_cfg"])).trim()),
      );
    });
    const prefixed = await get("/api/v1/clusters/default/telemetry/summary");
    expect(prefixed.status).toBe(200);
  }, 60_000);

  test("flows by pipeline, table and datapath add up to ovn-sbctl's counts", async () => {
    const f = (await get("/api/v1/telemetry/flows")).body as unknown as {
      total: number;
      by_pipeline: Record<string, number>;
      by_table: { pipeline: string; table_id: number; flows: number; stage: string | null }[];
      by_datapath: { name: string | null; own: number; shared: number; flows: number }[];
    };
    expect(f.total).toBe(await count(fx().ovn.sbctl, "Logical_Flow"));
    expect(f.by_pipeline.ingress).toBe(await count(fx().ovn.sbctl, "Logical_Flow", "pipeline=ingress"));
    expect(f.by_pipeline.egress).toBe(await count(fx().ovn.sbctl, "Logical_Flow", "pipeline=egress"));
    // One entry per (pipeline, table, stage): a switch's and a router's stages share table numbers.
    const listed = JSON.parse(
      await fx().ovn.sbctl([
        "--format=json",
        "--columns=pipeline,table_id,external_ids",
        "list",
        "Logical_Flow",
      ]),
    ) as { data: [string, number, ["map", [string, string][]]][] };
    const groups = new Map<string, number>();
    for (const [pipeline, table, [, ids]] of listed.data) {
      const stage = ids.find(([k]) => k === "stage-name")?.[1] ?? null;
      const key = JSON.stringify([pipeline, table, stage]);
      groups.set(key, (groups.get(key) ?? 0) + 1);
    }
    const expected = [...groups].map(([key, flows]) => {
      const [pipeline, table_id, stage] = JSON.parse(key) as [string, number, string | null];
      return { pipeline, table_id, stage, flows };
    });
    expect(f.by_table).toEqual(
      expected.sort(
        (a, b) =>
          compare(a.pipeline, b.pipeline) || a.table_id - b.table_id || compare(a.stage ?? "", b.stage ?? ""),
      ),
    );
    expect(
      f.by_table.filter((t) => t.pipeline === "ingress" && t.table_id === 0).map((t) => t.stage),
    ).toEqual(["lr_in_admission", "ls_in_check_port_sec"]);
    const sw = f.by_datapath.find((d) => d.name === "nvt-sw0");
    const dp = (
      await fx().ovn.sbctl([
        "--bare",
        "--columns=_uuid",
        "find",
        "Datapath_Binding",
        "external_ids:name=nvt-sw0",
      ])
    ).trim();
    expect(sw?.own).toBe(await count(fx().ovn.sbctl, "Logical_Flow", `logical_datapath=${dp}`));
  }, 60_000);

  test("a generation's travel: NB, SB and every chassis, in the timeline, the heatmap and /metrics", async () => {
    await fx().ovn.nbctl(["--wait=hv", "sync"]);
    const nbCfg = Number((await fx().ovn.nbctl(["get", "NB_Global", ".", "nb_cfg"])).trim());
    await eventually(async () => {
      const p = (await get("/api/v1/telemetry/propagation")).body as unknown as {
        nb: { nb_cfg: number; hv_cfg: number };
        chassis: { name: string; nb_cfg: number; in_sync: boolean; delay_ms: number | null }[];
      };
      expect(p.nb).toMatchObject({ nb_cfg: nbCfg, hv_cfg: nbCfg });
      for (const chassis of fx().ovn.chassis) {
        const sbNbCfg = Number(
          (await fx().ovn.sbctl(["get", "Chassis_Private", chassis.systemId, "nb_cfg"])).trim(),
        );
        expect(p.chassis.find((c) => c.name === chassis.systemId)).toMatchObject({
          nb_cfg: sbNbCfg,
          in_sync: true,
        });
      }
      expect(p.chassis.every((c) => c.delay_ms !== null && c.delay_ms >= 0)).toBe(true);
    });
    const [latest] = (await get("/api/v1/telemetry/propagation/timeline?limit=1"))
      .body as unknown as TimelineEntry[];
    expect(latest?.nb_cfg).toBe(nbCfg);
    expect(latest?.sb_ms).not.toBeNull();
    expect(latest?.hv_ms).not.toBeNull();
    expect(latest?.chassis.map((c) => c.name).sort()).toEqual(
      fx()
        .ovn.chassis.map((c) => c.systemId)
        .sort(),
    );
    const map = (await get("/api/v1/telemetry/propagation/heatmap")).body as unknown as {
      generations: number[];
      chassis: string[];
      cells: (number | null)[][];
    };
    expect(map.generations[map.generations.length - 1]).toBe(nbCfg);
    expect(map.chassis).toEqual(expect.arrayContaining(fx().ovn.chassis.map((c) => c.systemId)));
    expect(map.cells.every((row) => row[row.length - 1] !== null)).toBe(true);
    expect((await get("/api/v1/telemetry/propagation/timeline?limit=0")).status).toBe(400);
    const metrics = (await get("/metrics")).text;
    expect(metrics).toContain(`netview_nb_cfg{cluster="default",counter="hv_cfg"} ${nbCfg}`);
    expect(metrics).toMatch(/netview_propagation_seconds\{cluster="default",stage="hv"\} [0-9.e-]+/);
    expect(metrics).toContain(
      `netview_chassis{cluster="default",sync_status="in_sync"} ${fx().ovn.chassis.length}`,
    );
  }, 60_000);

  test("raft: the sandbox's databases answer as standalone members, also on /metrics", async () => {
    await eventually(async () => {
      const health = (await get("/api/v1/telemetry/raft-health")).body as unknown as {
        database: string;
        state: string;
      }[];
      expect(health.map((h) => [h.database, h.state])).toEqual([
        ["nb", "standalone"],
        ["sb", "standalone"],
      ]);
    });
    const cluster = (await get("/api/v1/telemetry/cluster")).body as unknown as {
      name: string;
      members: { remote: string; leader: boolean }[];
    }[];
    expect(cluster.map((c) => c.name)).toEqual(["OVN_Northbound", "OVN_Southbound"]);
    expect(cluster[0]?.members).toEqual([
      expect.objectContaining({ remote: fx().ovn.nbRemote, leader: true, model: "standalone" }),
    ]);
    const metrics = (await get("/metrics")).text;
    expect(metrics).toContain('netview_raft_has_leader{cluster="default",database="nb"} 1');
    expect(metrics).toContain(
      `netview_raft_member_up{cluster="default",database="sb",member="${fx().ovn.sbRemote}"} 1`,
    );
  }, 60_000);
});
