// Editing a firing rule against the harness's OVN: a port no chassis binds fires ports_unbound; a
// change of its severity and labels shows at once on the same alert (its since and fired_at kept);
// a `for` longer than it has held puts it back to pending, and one it has held fires it again with
// the same since; a disabled rule resolves it.
import { describe, expect, test } from "bun:test";
import { routeTestForFile } from "../../../../harness/netview/route-test.ts";
import { send } from "../../../../harness/netview/send.ts";
import { eventually } from "../../../../harness/netview/test-support.ts";
import type { Alert } from "./alert-engine.ts";

const fx = routeTestForFile({
  ops: { alertEveryMs: 100 },
  cleanup: (ovn) => ovn.nbctl(["--if-exists", "ls-del", "nva-sw0"]),
});

const call = (method: string, path: string, body?: unknown) => send(fx().app, method, path, { body });

const unbound = async (query = "?silenced=include") =>
  ((await call("GET", `/api/v1/alerts${query}`)).body as Alert[]).filter((a) => a.rule === "ports_unbound");

describe("PUT /api/v1/alerts/rules/{name} on a firing rule", () => {
  test("severity and labels change at once on the same alert; for and enabled act on the next evaluation", async () => {
    expect((await call("PUT", "/api/v1/alerts/rules/ports_unbound", { for: "500ms" })).status).toBe(200);
    await fx().ovn.nbctl(["ls-add", "nva-sw0", "--", "lsp-add", "nva-sw0", "nva-p0"]);
    let firing: Alert | undefined;
    await eventually(async () => {
      [firing] = await unbound();
      expect(firing?.message).toContain("nva-p0");
    });
    expect(firing).toMatchObject({ severity: "warning", labels: {}, silenced: false });

    const changed = await call("PUT", "/api/v1/alerts/rules/ports_unbound", {
      severity: "critical",
      labels: { team: "net", runbook: "ports" },
    });
    expect(changed.body).toMatchObject({
      severity: "critical",
      labels: { team: "net", runbook: "ports" },
      overridden: ["for_ms", "labels", "severity"],
      defaults: { severity: "warning", labels: {} },
    });
    // At once, with the silenced ones too and without: the same alert, its times kept.
    for (const query of ["", "?silenced=include"]) {
      expect(await unbound(query)).toEqual([
        { ...(firing as Alert), severity: "critical", labels: { team: "net", runbook: "ports" } },
      ]);
    }
    expect(await unbound("?severity=critical")).toHaveLength(1);

    // A `for` longer than it has held: pending (not listed); back to one it has held: firing, same since.
    await call("PUT", "/api/v1/alerts/rules/ports_unbound", { for: "1h" });
    expect(await unbound()).toEqual([]);
    await call("PUT", "/api/v1/alerts/rules/ports_unbound", { for: "500ms" });
    const [again] = await unbound();
    expect(again?.since).toBe(firing?.since as string);

    await call("PUT", "/api/v1/alerts/rules/ports_unbound", { enabled: false });
    expect(await unbound()).toEqual([]);
  }, 60_000);

  test("labels are checked, and null puts them back to none", async () => {
    const bad = await call("PUT", "/api/v1/alerts/rules/ports_unbound", {
      labels: { "not a name": "x", team: 7 },
    });
    expect(bad.status).toBe(400);
    expect((bad.body as { error: string }).error).toBe(
      'invalid body: labels: "not a name" is not a label name; labels.team: must be a string of at most 200 characters',
    );
    const reset = await call("PUT", "/api/v1/alerts/rules/ports_unbound", {
      labels: null,
      severity: null,
      for: null,
      enabled: null,
    });
    expect(reset.body).toMatchObject({ labels: {}, severity: "warning", overridden: [] });
  });
});
