/**
 * The faults a run played, drawn on the month's timeline for `report.html`: one mark per fault at the
 * virtual instant it struck, over the month's days, and a table of what recovered in how long. Inline
 * SVG and HTML, like the other charts.
 */
import type { FaultMark } from "./report-data.ts";
import { escapeHtml as e } from "./svg-charts.ts";

const width = 760;
const height = 96;
const margin = { left: 48, right: 36 };
const palette = ["#c62828", "#ef6c00", "#6a1b9a", "#1565c0"];
const nowrap = 'style="white-space:nowrap"';
const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

/** The month [from, to) as a line of days with each fault marked and numbered. */
export function faultTimeline(period: { from: string; to: string }, faults: readonly FaultMark[]): string {
  const from = Date.parse(period.from);
  const span = Date.parse(period.to) - from;
  const plot = width - margin.left - margin.right;
  const x = (ms: number) => margin.left + (plot * (ms - from)) / span;
  const axisY = 64;
  const days: string[] = [];
  for (let t = from, i = 0; t < from + span; t += 86_400_000, i++) {
    days.push(`<line x1="${x(t)}" x2="${x(t)}" y1="${axisY - 3}" y2="${axisY + 3}" stroke="#999"/>`);
    if (i % 5 === 0)
      days.push(
        `<text x="${x(t)}" y="${axisY + 18}" text-anchor="middle">${new Date(t).toISOString().slice(0, 10)}</text>`,
      );
  }
  const marks = faults.map((f, i) => {
    const at = x(Date.parse(f.at));
    const color = palette[i % palette.length];
    return `<g><line x1="${at}" x2="${at}" y1="14" y2="${axisY}" stroke="${color}" stroke-width="2"/><circle cx="${at}" cy="14" r="9" fill="${color}"/><text x="${at}" y="18" text-anchor="middle" fill="#fff">${i + 1}</text><title>${e(`${i + 1}. ${f.target} killed at ${f.at}: recovered in ${seconds(f.recoveredMs)}`)}</title></g>`;
  });
  const chart = `<svg viewBox="0 0 ${width} ${height}" role="img" aria-label="faults on the month's timeline" class="chart"><line x1="${margin.left}" x2="${width - margin.right}" y1="${axisY}" y2="${axisY}" stroke="#999"/>${days.join("")}${marks.join("")}</svg>`;
  const rows = faults
    .map(
      (f, i) =>
        `<tr><td class="n">${i + 1}</td><td ${nowrap}>${e(f.at.slice(0, 16).replace("T", " "))}</td><td>${e(f.target)}</td><td class="n" ${nowrap}>${seconds(f.recoveredMs)}</td><td class="n" ${nowrap}>${seconds(f.restartedMs)}</td><td>${e(f.detail)}</td></tr>`,
    )
    .join("");
  return `${chart}<table><tr><th class="n">#</th><th>at</th><th>killed (SIGKILL)</th><th class="n">recovered</th><th class="n">back</th><th>what happened</th></tr>${rows}</table>`;
}
