import type { Comparison } from "../../lib/billing/compare/compare-oracle.ts";
import { decimal, formatMoney } from "../../lib/foundation/money/decimal.ts";
import type { ReportData } from "./report-data.ts";
import { escapeHtml as e, horizontalBars, lineChart, stackedBars } from "./svg-charts.ts";

const style = `
body{font:14px/1.45 system-ui,sans-serif;margin:24px auto;max-width:820px;color:#222}
h1{font-size:22px;margin:0 0 4px}h2{font-size:17px;margin:28px 0 8px;border-bottom:1px solid #ddd}
.verdict{display:inline-block;padding:2px 10px;border-radius:4px;color:#fff;font-weight:600}
.pass{background:#2e7d32}.fail{background:#c62828}.pending{background:#8d6e00}
.muted{color:#666}.chart{width:100%;height:auto;font-size:11px;fill:#333}
.legend span{margin-right:14px;font-size:12px}.legend i{display:inline-block;width:10px;height:10px;margin-right:4px}
table{border-collapse:collapse;width:100%;font-size:12px}td,th{border-bottom:1px solid #eee;padding:3px 6px;text-align:left}
td.n,th.n{text-align:right;font-variant-numeric:tabular-nums}ul.checks{list-style:none;padding:0}
ul.checks li{margin:4px 0}ul.checks .details{margin:2px 0 0 76px;font-size:12px;color:#555;white-space:pre-wrap}
`;

const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

function checksList(data: ReportData): string {
  return `<ul class="checks">${data.checks
    .map(
      (c) =>
        `<li><span class="verdict ${c.status}">${c.status}</span> ${e(c.text)}${c.details.length > 0 ? `<div class="details">${e(c.details.join("\n"))}</div>` : ""}</li>`,
    )
    .join("")}</ul>`;
}

/** A project as a bar names it: its registry name beside the start of its key, or its key. */
function projectLabel(p: { key: string; name: string | null }): string {
  return p.name === null ? p.key : `${p.name} (${p.key.slice(0, 16)}…)`;
}

function billing(data: ReportData): string {
  if (data.projects.length === 0) return "<p>No statement was exported.</p>";
  const rows = data.projects.map((p) => ({
    label: projectLabel(p),
    value: Number(p.statement),
    text: p.statement,
  }));
  const corrected = data.projects.some((p) => p.creditNote !== null);
  const table = `<table><tr><th>project</th><th>name in the registry</th><th class="n">statement</th><th>adjustments</th>${corrected ? '<th class="n">credit note</th><th class="n">after correction</th>' : ""}</tr>${data.projects
    .map((p) => {
      const adjustments =
        p.adjustments === undefined
          ? ""
          : `base ${e(p.base ?? "")}; ${p.adjustments.map((a) => `${e(a.type)} ${e(a.amount)}`).join(", ")}`;
      const after =
        p.creditNote === null ? p.statement : formatMoney(decimal(p.statement).plus(decimal(p.creditNote)));
      return `<tr><td>${e(p.key)}</td><td>${p.name === null ? '<span class="muted">unregistered</span>' : e(p.name)}</td><td class="n">${e(p.statement)}</td><td>${adjustments}</td>${corrected ? `<td class="n">${e(p.creditNote ?? "")}</td><td class="n">${e(after)}</td>` : ""}</tr>`;
    })
    .join("")}</table>`;
  return `${horizontalBars(rows, { label: "billed amount per project" })}${table}`;
}

function lateSection(data: ReportData): string {
  if (data.late === null) return "<p>No event of this month arrived late.</p>";
  const notes = data.projects.filter((p) => p.creditNote !== null);
  const detected = data.late.detected;
  return `${stackedBars(data.late.heldPerDay, { label: "held-back events per day", every: 5 })}
<p>${detected.length} resources with late events named by <code>engine detect-late</code>${notes.length > 0 ? `; the correction wrote ${notes.length} credit notes:` : "."}</p>
${
  notes.length === 0
    ? ""
    : horizontalBars(
        notes.map((p) => ({
          label: projectLabel(p),
          value: Number(p.creditNote),
          text: p.creditNote ?? "",
          color: Number(p.creditNote) < 0 ? "#59a14f" : "#e15759",
        })),
        { label: "credit notes per project" },
      )
}
<table><tr><th>late resource</th><th class="n">late events</th></tr>${detected
    .slice(0, 40)
    .map((l) => `<tr><td>${e(l.resource)}</td><td class="n">${l.events}</td></tr>`)
    .join(
      "",
    )}</table>${detected.length > 40 ? `<p class="muted">… and ${detected.length - 40} more</p>` : ""}`;
}

function comparisonTable(title: string, comparison: Comparison): string {
  const marked = comparison.differences.filter((d) => d.missingCreate).length;
  const head = `<p><b>${e(title)}</b>: ${comparison.resources} resources compared, ${comparison.differences.length} differ${marked > 0 ? ` (${marked} marked missing-create)` : ""}.</p>`;
  if (comparison.differences.length === 0) return head;
  const rows = comparison.differences
    .slice(0, 60)
    .flatMap((d) =>
      d.lines.map(
        (l) =>
          `<tr><td>${e(d.resource)}${d.missingCreate ? " [missing-create]" : ""}</td><td>${e(l.line)}</td><td class="n">${e(l.oracle)}</td><td class="n">${e(l.export)}</td></tr>`,
      ),
    )
    .join("");
  return `${head}<table><tr><th>resource</th><th>project/dimension</th><th class="n">oracle</th><th class="n">export</th></tr>${rows}</table>${comparison.differences.length > 60 ? `<p class="muted">… and ${comparison.differences.length - 60} more resources</p>` : ""}`;
}

/** `report.html`: one self-contained page (inline style and SVG, no script, nothing fetched). */
export function renderReport(data: ReportData): string {
  const verdict = data.passed ? "pass" : "fail";
  const faults = data.faults.length === 0 ? "no faults" : `faults ${data.faults.join(", ")}`;
  const stageRows = data.stages.map((s) => ({ label: s.stage, value: s.ms, text: seconds(s.ms) }));
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width">
<title>scenario ${e(data.scenario)} seed ${data.seed}</title><style>${style}</style></head><body>
<h1>scenario ${e(data.scenario)} <span class="verdict ${verdict}">${verdict === "pass" ? "PASS" : "FAIL"}</span></h1>
<p class="muted">${e(data.summary)}<br>seed ${data.seed}, ${e(data.period)}, ${data.tenants} tenants, ${e(faults)}; ${seconds(data.totalMs)} in all</p>
<h2>Checks</h2>${checksList(data)}
<h2>Where the time goes</h2>${horizontalBars(stageRows, { label: "time per stage" })}
<h2>Events per day</h2>${stackedBars(data.eventsPerDay, { label: "events per day by kind", every: 5 })}
<p class="muted">Events dated inside the month; ${data.eventsPerDay.before} more are dated before it (resources created earlier).</p>
<h2>Live resources</h2>${lineChart(data.liveResources, { label: "live resources by type", every: 20 })}
<p class="muted">As the oracle states them, every six hours.</p>
<h2>Billed per project</h2>${billing(data)}
<h2>Late events and the correction</h2>${lateSection(data)}
<h2>Against the oracle</h2>${comparisonTable(data.comparisons.corrected === null ? "The bill" : "The finalized bill", data.comparisons.finalized)}${data.comparisons.corrected === null ? "" : comparisonTable("The corrected bill", data.comparisons.corrected)}
</body></html>
`;
}
