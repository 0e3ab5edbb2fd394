import type { SeriesSet } from "./report-data.ts";

/**
 * Small charts as inline SVG: no script, no network, so `report.html` is one self-contained file that
 * any browser draws the same. Values past the chart's hover show in `<title>` tooltips.
 */

const palette = ["#4e79a7", "#f28e2b", "#59a14f", "#e15759", "#76b7b2", "#edc948", "#b07aa1", "#9c755f"];

function colorOf(index: number): string {
  return palette[index % palette.length] ?? "#888";
}

/** Escapes text for HTML and SVG content and attribute values. */
export function escapeHtml(text: string): string {
  return text
    .replaceAll("&", "&amp;")
    .replaceAll("<", "&lt;")
    .replaceAll(">", "&gt;")
    .replaceAll('"', "&quot;")
    .replaceAll("'", "&#39;");
}

/** Most gridlines above zero an axis draws: few enough to read, enough to keep the top near the peak. */
const maxTicks = 6;

/**
 * A value axis for data peaking at `peak`: a round step (1, 2 or 5 times a power of ten) and the top
 * at the first multiple of it reaching the peak, with at most six steps, so that the top stays near
 * the peak (105 reads 0 to 120 by 20, not 0 to 200).
 */
export function axisScale(peak: number): { top: number; step: number } {
  if (peak <= 0) return { top: 1, step: 1 };
  let power = 10 ** Math.floor(Math.log10(peak / maxTicks));
  for (;;) {
    for (const unit of [1, 2, 5]) {
      const step = unit * power;
      const count = Math.ceil(peak / step - 1e-9);
      if (count <= maxTicks) return { top: Number((count * step).toPrecision(12)), step };
    }
    power *= 10;
  }
}

/** An x label as a date: the day of a label that starts with one (`2026-10-06 18:00` reads `2026-10-06`). */
function dateLabel(label: string): string {
  return /^\d{4}-\d{2}-\d{2}/.test(label) ? label.slice(0, 10) : label;
}

const width = 760;
const height = 240;
const margin = { left: 48, right: 36, top: 12, bottom: 36 };
const plotW = width - margin.left - margin.right;
const plotH = height - margin.top - margin.bottom;

function axes(
  scale: { top: number; step: number },
  labels: readonly string[],
  every: number,
  slotW: number,
): string {
  const values: number[] = [];
  for (let i = 0; i * scale.step <= scale.top + 1e-9; i++)
    values.push(Number((i * scale.step).toPrecision(12)));
  const ticks = values
    .map((value) => {
      const y = margin.top + plotH * (1 - value / scale.top);
      return `<line x1="${margin.left}" x2="${width - margin.right}" y1="${y}" y2="${y}" stroke="#e5e5e5"/><text x="${margin.left - 6}" y="${y + 4}" text-anchor="end">${value}</text>`;
    })
    .join("");
  const xLabels = labels
    .map((label, i) =>
      i % every === 0
        ? `<text x="${margin.left + slotW * (i + 0.5)}" y="${height - margin.bottom + 16}" text-anchor="middle">${escapeHtml(dateLabel(label))}</text>`
        : "",
    )
    .join("");
  return `${ticks}${xLabels}<line x1="${margin.left}" x2="${width - margin.right}" y1="${margin.top + plotH}" y2="${margin.top + plotH}" stroke="#999"/>`;
}

function legend(set: SeriesSet): string {
  return `<div class="legend">${set.series
    .map((s, i) => `<span><i style="background:${colorOf(i)}"></i>${escapeHtml(s.name)}</span>`)
    .join("")}</div>`;
}

function svg(label: string, body: string): string {
  return `<svg viewBox="0 0 ${width} ${height}" role="img" aria-label="${escapeHtml(label)}" class="chart">${body}</svg>`;
}

/** Bars per label, the series stacked, with a legend. */
export function stackedBars(set: SeriesSet, options: { label: string; every?: number }): string {
  const totals = set.labels.map((_, i) => set.series.reduce((n, s) => n + (s.values[i] ?? 0), 0));
  const scale = axisScale(Math.max(0, ...totals));
  const { top } = scale;
  const slotW = plotW / Math.max(1, set.labels.length);
  const bars: string[] = [];
  set.labels.forEach((label, i) => {
    let base = 0;
    set.series.forEach((s, k) => {
      const value = s.values[i] ?? 0;
      if (value === 0) return;
      const h = (value / top) * plotH;
      const y = margin.top + plotH - ((base + value) / top) * plotH;
      bars.push(
        `<rect x="${(margin.left + slotW * i + slotW * 0.1).toFixed(1)}" y="${y.toFixed(1)}" width="${(slotW * 0.8).toFixed(1)}" height="${h.toFixed(1)}" fill="${colorOf(k)}"><title>${escapeHtml(`${label} ${s.name}: ${value}`)}</title></rect>`,
      );
      base += value;
    });
  });
  return `${svg(options.label, `${axes(scale, set.labels, options.every ?? 1, slotW)}${bars.join("")}`)}${legend(set)}`;
}

/** One line per series over the labels, with a legend. */
export function lineChart(set: SeriesSet, options: { label: string; every?: number }): string {
  const scale = axisScale(Math.max(0, ...set.series.flatMap((s) => s.values)));
  const { top } = scale;
  const slotW = plotW / Math.max(1, set.labels.length);
  const lines = set.series
    .map((s, k) => {
      const points = s.values
        .map(
          (v, i) =>
            `${(margin.left + slotW * (i + 0.5)).toFixed(1)},${(margin.top + plotH * (1 - v / top)).toFixed(1)}`,
        )
        .join(" ");
      const peak = Math.max(0, ...s.values);
      return `<polyline points="${points}" fill="none" stroke="${colorOf(k)}" stroke-width="2"><title>${escapeHtml(`${s.name}: up to ${peak}`)}</title></polyline>`;
    })
    .join("");
  return `${svg(options.label, `${axes(scale, set.labels, options.every ?? 1, slotW)}${lines}`)}${legend(set)}`;
}

/** Horizontal bars, one row each, signed values drawn either side of zero, each with its own text. */
export function horizontalBars(
  rows: readonly { label: string; value: number; text: string; color?: string }[],
  options: { label: string },
): string {
  const rowH = 22;
  const labelW = 300;
  const textW = 90;
  const h = rows.length * rowH + 8;
  const span = Math.max(1e-9, ...rows.map((r) => Math.abs(r.value)));
  const negative = rows.some((r) => r.value < 0);
  const barW = width - labelW - textW;
  const zero = labelW + (negative ? barW / 2 : 0);
  const scale = (negative ? barW / 2 : barW) / span;
  const body = rows
    .map((r, i) => {
      const y = 4 + i * rowH;
      const w = Math.abs(r.value) * scale;
      const x = r.value < 0 ? zero - w : zero;
      return `<text x="${labelW - 8}" y="${y + 15}" text-anchor="end">${escapeHtml(r.label)}</text><rect x="${x.toFixed(1)}" y="${y + 3}" width="${w.toFixed(1)}" height="${rowH - 6}" fill="${r.color ?? colorOf(0)}"><title>${escapeHtml(`${r.label}: ${r.text}`)}</title></rect><text x="${width - 4}" y="${y + 15}" text-anchor="end">${escapeHtml(r.text)}</text>`;
    })
    .join("");
  return `<svg viewBox="0 0 ${width} ${h}" role="img" aria-label="${escapeHtml(options.label)}" class="chart"><line x1="${zero}" x2="${zero}" y1="0" y2="${h}" stroke="#999"/>${body}</svg>`;
}
