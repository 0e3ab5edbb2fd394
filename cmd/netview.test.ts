// netview as an operator runs it, against the harness's OVN, with a state directory: stopping a
// chassis's ovn-controller raises chassis_down once the chassis is behind for the stale threshold; a
// silence hides it; a rule change and the silence survive a restart of the process, and the alert is
// raised again after it, still silenced.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Subprocess } from "bun";
import { eventually, testAuthHeaders, testWriteToken } from "../harness/netview/test-support.ts";
import { freePort } from "../harness/process/free-port.ts";
import type { OvnService } from "../harness/services/ovn.ts";
import { services } from "../harness/test-services.ts";
import type { Alert } from "../lib/network/netview/alerts/alert-engine.ts";

let ovn: OvnService;
let stateDir = "";
let running: Subprocess | undefined;
let base = "";
const staleThreshold = "2s";

async function startNetview(): Promise<void> {
  const port = await freePort();
  base = `http://127.0.0.1:${port}`;
  running = Bun.spawn(
    [
      "bun",
      join(import.meta.dir, "netview.ts"),
      `--ovnnb-db=${ovn.nbRemote}`,
      `--ovnsb-db=${ovn.sbRemote}`,
      `--listen=127.0.0.1:${port}`,
      `--state-dir=${stateDir}`,
      `--write-token-file=${join(stateDir, "token")}`,
      `--chassis-stale-threshold=${staleThreshold}`,
      "--probe-interval=1s",
    ],
    {
      env: { PATH: process.env.PATH ?? "", SVC_LOG_LEVEL: "WARN" },
      stdin: "ignore",
      stdout: "ignore",
      stderr: "ignore",
    },
  );
  await eventually(async () => expect((await fetch(`${base}/readyz`)).status).toBe(200), 30_000);
}

async function stopNetview(): Promise<number | null> {
  running?.kill("SIGTERM");
  const code = (await running?.exited) ?? null;
  running = undefined;
  return code;
}

async function call(method: string, path: string, body?: unknown) {
  const res = await fetch(`${base}${path}`, {
    method,
    headers: { ...testAuthHeaders, ...(body === undefined ? {} : { "content-type": "application/json" }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await res.text();
  return { status: res.status, body: (text === "" ? null : JSON.parse(text)) as unknown };
}

const alerts = async (query = "") => (await call("GET", `/api/v1/alerts${query}`)).body as Alert[];

beforeAll(async () => {
  ovn = await services.ovn();
  stateDir = mkdtempSync(join(tmpdir(), "svc-netview-state-"));
  // Silences and rule changes need the write token (decision 362).
  writeFileSync(join(stateDir, "token"), `${testWriteToken}\n`, { mode: 0o600 });
}, 60_000);

afterAll(async () => {
  await stopNetview();
  if (stateDir !== "") rmSync(stateDir, { recursive: true, force: true });
});

describe("netview with a state directory", () => {
  test("a stopped ovn-controller raises chassis_down; the silence and a rule change survive a restart", async () => {
    const chassis = ovn.chassis[1];
    if (chassis === undefined) throw new Error("the sandbox has no second chassis");
    await startNetview();
    const changed = await call("PUT", "/api/v1/alerts/rules/ports_unbound", { severity: "info", for: "5m" });
    expect(changed.body).toMatchObject({
      name: "ports_unbound",
      severity: "info",
      for_ms: 300_000,
      overridden: ["for_ms", "severity"],
    });
    expect((await alerts()).filter((a) => a.rule === "chassis_down")).toEqual([]);

    await chassis.controller.stop();
    try {
      // A new generation the stopped chassis cannot follow (an operator's next change does the same).
      await ovn.nbctl(["--wait=sb", "sync"]);
      const generation = Number((await ovn.nbctl(["get", "NB_Global", ".", "nb_cfg"])).trim());
      const startedMs = Number((await ovn.nbctl(["get", "NB_Global", ".", "nb_cfg_timestamp"])).trim());
      let down: Alert | undefined;
      await eventually(async () => {
        down = (await alerts()).find((a) => a.rule === "chassis_down" && a.subject === chassis.systemId);
        expect(down).toBeDefined();
      }, 30_000);
      expect(down).toMatchObject({ severity: "critical", cluster: "default", silenced: false });
      expect(down?.message).toContain(`behind nb_cfg ${generation}`);
      // Raised once the chassis had been behind for the threshold, not before.
      expect(Date.parse(down?.since ?? "")).toBeGreaterThanOrEqual(startedMs + 2000);

      const silence = await call("POST", "/api/v1/alerts/silences", {
        matchers: { rule: "chassis_down", subject: chassis.systemId },
        comment: "controller maintenance",
        created_by: "alice",
        duration: "1h",
      });
      expect(silence.status).toBe(201);
      const silenceId = (silence.body as { id: string }).id;
      expect((await alerts()).some((a) => a.rule === "chassis_down")).toBe(false);
      expect((await alerts("?silenced=only")).map((a) => [a.rule, a.subject, a.silenced_by])).toEqual([
        ["chassis_down", chassis.systemId, [silenceId]],
      ]);

      expect(await stopNetview()).toBe(0);
      await startNetview();
      await eventually(async () => {
        expect((await alerts("?silenced=only")).map((a) => [a.rule, a.subject])).toEqual([
          ["chassis_down", chassis.systemId],
        ]);
      }, 30_000);
      expect((await alerts()).some((a) => a.rule === "chassis_down")).toBe(false);
      const rules = (await call("GET", "/api/v1/alerts/rules")).body as {
        name: string;
        severity: string;
        for_ms: number;
      }[];
      expect(rules.find((r) => r.name === "ports_unbound")).toMatchObject({
        severity: "info",
        for_ms: 300_000,
      });
      const silences = (await call("GET", "/api/v1/alerts/silences")).body as {
        id: string;
        state: string;
        comment: string;
      }[];
      expect(silences).toEqual([
        expect.objectContaining({ id: silenceId, state: "active", comment: "controller maintenance" }),
      ]);

      // Deleted, the silence no longer hides it.
      expect((await call("DELETE", `/api/v1/alerts/silences/${silenceId}`)).status).toBe(204);
      expect((await alerts()).some((a) => a.rule === "chassis_down" && a.subject === chassis.systemId)).toBe(
        true,
      );
      const metrics = await (await fetch(`${base}/metrics`)).text();
      expect(metrics).toMatch(
        /netview_alerts_firing\{rule="chassis_down",severity="critical",silenced="false"[^}]*\} 1/,
      );
    } finally {
      await chassis.controller.start();
      await ovn.nbctl(["--wait=hv", "sync"]);
    }
    // Back in sync, the alert resolves by itself.
    await eventually(
      async () => expect((await alerts()).some((a) => a.rule === "chassis_down")).toBe(false),
      30_000,
    );
  }, 180_000);
});
