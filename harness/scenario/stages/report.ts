import { writeFileSync } from "node:fs";
import { join } from "node:path";
import postgres from "postgres";
import { renderInChromium } from "../../browser/headless-chromium.ts";
import { passed } from "../checks.ts";
import { retriedText } from "../cluster-faults.ts";
import { eventsPerDay, type FaultMark, heldPerDay, liveResources, type ReportData } from "../report-data.ts";
import { renderReport } from "../report-html.ts";
import { need, type ScenarioRun } from "./run-state.ts";
import type { SteppedStage } from "./stage.ts";

/** The registry's names of projects, by `<cloud>/<external id>` (only the named ones). */
async function registryNames(url: string): Promise<Map<string, string>> {
  const sql = postgres(url, { max: 1, onnotice: () => {} });
  try {
    const rows = await sql<{ key: string; name: string }[]>`
      select cloud || '/' || external_id as key, name from projects where name is not null`;
    return new Map(rows.map((r) => [r.key, r.name]));
  } finally {
    await sql.end({ timeout: 5 });
  }
}

/** The faults a clustered run played, as the report marks them on the month. */
function faultMarksOf(run: ScenarioRun): { faultMarks?: FaultMark[] } {
  const faults = run.delivery?.cluster?.()?.faults;
  if (faults === undefined) return {};
  return {
    faultMarks: faults.map((f) => ({
      at: f.at,
      target: f.target,
      recoveredMs: f.recoveredMs,
      restartedMs: f.restartedMs,
      detail: `${f.recovery}; ${retriedText(f.retried)}; ${f.redelivered} redelivered`,
    })),
  };
}

/** What `report.html` shows, from what the stages found. */
async function reportData(run: ScenarioRun): Promise<ReportData> {
  const { scenario, seed, period, tenants } = run.options;
  const checks = need(run, "checks");
  const generated = need(run, "generated");
  const compared = need(run, "compared");
  const { statements, creditNotes } = need(run, "exported");
  const names = await registryNames(need(run, "stack").reportingDbUrl);
  const notes = new Map(creditNotes.map((n) => [`${n.cloud}/${n.project_id}`, n.total]));
  return {
    scenario: scenario.name,
    summary: scenario.summary,
    seed,
    period: period.name,
    tenants,
    faults: scenario.faults,
    passed: passed(checks),
    totalMs: Math.round(performance.now() - run.began),
    stages: run.stages,
    checks,
    eventsPerDay: eventsPerDay([...generated.published, ...generated.held], period),
    liveResources: liveResources(generated.oracle, period),
    projects: statements.map((s) => {
      const key = `${s.cloud}/${s.project_id}`;
      return {
        key,
        name: names.get(key) ?? null,
        statement: s.total,
        creditNote: notes.get(key) ?? null,
        ...(s.adjustments === undefined
          ? {}
          : {
              base: s.base_cost ?? "",
              adjustments: s.adjustments.map((a) => ({ type: a.type, amount: a.amount ?? "" })),
            }),
      };
    }),
    ...faultMarksOf(run),
    late:
      run.late === undefined
        ? null
        : { heldPerDay: heldPerDay(generated.held, period), detected: run.late.detected },
    comparisons: {
      finalized: compared.finalized,
      corrected: run.correction?.output ? compared.standing : null,
    },
  };
}

/**
 * `report.html` beside the artefacts; with `screenshot`, rendered in headless Chromium into
 * `report.png` as the stage `report`, a console error failing its check.
 */
export const reportStage: SteppedStage = {
  name: "report",
  async steps(run, step) {
    const html = join(run.options.dir, "report.html");
    writeFileSync(html, renderReport(await reportData(run)));
    if (run.options.screenshot !== true) return;
    const rendered = await step(
      "report",
      () => renderInChromium(html, { screenshot: join(run.options.dir, "report.png") }),
      (r) => `report.html rendered in headless Chromium into report.png, ${r.errors.length} console errors`,
    );
    need(run, "checks").push({
      status: rendered.errors.length === 0 ? "pass" : "fail",
      text: "report.html renders in headless Chromium without a console error",
      details: rendered.errors,
    });
  },
};
