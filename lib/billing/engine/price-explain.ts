import { and, asc, eq, getTableColumns } from "drizzle-orm";
import type { Sql } from "postgres";
import { UsageError } from "../../foundation/cli/usage-error.ts";
import { canonicalInstant } from "../../foundation/postgres/canonical-instant.ts";
import type { PlanFigures } from "../statements/statement-plan.ts";
import { type ExplainedInterval, type ExplainedLine, explainResource } from "./explain-resource.ts";
import { defaultRun, requireRun } from "./run-lookup.ts";
import { engineDb } from "./store/engine-db.ts";
import { usage } from "./store/engine-schema.ts";
import { loadPricingModel } from "./store/pricing-models.ts";
import { storedStatements } from "./store/stored-statements.ts";

/** What `engine price --explain` prints as JSON. */
export interface PriceExplanation {
  run_id: string;
  period: string;
  pricing_model: string;
  cloud: string;
  platform: string;
  resource_type: string;
  resource_id: string;
  intervals: ExplainedInterval[];
  lines: ExplainedLine[];
  /** The statements the lines count on, with the plan lines on them. */
  statements: { cloud: string; project_id: string; total: string; plan: PlanFigures | null }[];
}

/**
 * `engine price --period --explain <resource id> [--run]` (decision 469): a regular run's usage records of
 * one resource priced again with the very model the run stored, shown interval by interval, and the
 * plan lines of the statements they count on. The regular run's: a correction stores deltas, not usage.
 */
export async function explainPrice(
  sql: Sql,
  request: { period: string; resourceId: string; runId: string | undefined },
): Promise<PriceExplanation> {
  const run =
    request.runId === undefined
      ? await defaultRun(sql, request.period)
      : await requireRun(sql, request.runId);
  if (run === null)
    throw new UsageError(
      `${request.period} has no completed run: run it first with run --period ${request.period}`,
    );
  if (run.kind !== "regular") throw new UsageError(`run ${run.id} is a correction: explain its regular run`);
  if (run.period !== request.period)
    throw new UsageError(`run ${run.id} is a run of ${run.period}, not of ${request.period}`);
  // Canonical instants: the tariff's and epochs' boundaries are compared with them as strings.
  const rows = await engineDb(sql)
    .select({
      ...getTableColumns(usage),
      from: canonicalInstant<string>(usage.from),
      to: canonicalInstant<string>(usage.to),
    })
    .from(usage)
    .where(and(eq(usage.runId, run.id), eq(usage.resourceId, request.resourceId)))
    .orderBy(asc(usage.cloud), asc(usage.resourceType), asc(usage.from));
  const first = rows[0];
  if (first === undefined)
    throw new UsageError(
      `run ${run.id} metered no resource ${JSON.stringify(request.resourceId)} in ${run.period}`,
    );
  if (rows.some((r) => r.cloud !== first.cloud || r.resourceType !== first.resourceType))
    throw new UsageError(`${request.resourceId} names resources of several clouds or types in run ${run.id}`);
  const model = await loadPricingModel(sql, run.pricingModel);
  const resource = { platform: first.platform, resource_type: first.resourceType };
  const explained = explainResource(
    model,
    resource,
    rows.map((r) => ({
      from: r.from,
      to: r.to,
      state: r.state,
      project_id: r.projectId,
      size: r.size,
      ...(r.counters === null ? {} : { counters: r.counters }),
    })),
  );
  const projects = new Set(rows.map((r) => r.projectId));
  const statements = (await storedStatements(sql, run.id))
    .filter(
      (s) =>
        (s.cloud === first.cloud && projects.has(s.project_id)) ||
        s.related.some((r) => r.cloud === first.cloud && projects.has(r.project_id)),
    )
    .map((s) => ({ cloud: s.cloud, project_id: s.project_id, total: s.total.toFixed(2), plan: s.plan }));
  return {
    run_id: run.id,
    period: run.period,
    pricing_model: model.name,
    cloud: first.cloud,
    ...resource,
    resource_id: request.resourceId,
    ...explained,
    statements,
  };
}

/** The lines `engine price --explain` prints for a person. */
export function explanationLines(e: PriceExplanation): string[] {
  const out = [
    `${e.cloud}/${e.platform}/${e.resource_type}/${e.resource_id} in run ${e.run_id} (${e.period}, pricing model ${e.pricing_model})`,
  ];
  for (const i of e.intervals) {
    const by =
      i.attribute === null
        ? ""
        : ` ${i.attribute.member}=${i.attribute.carried ?? "-"} priced as ${i.attribute.priced_as}`;
    const prices = Object.entries(i.prices)
      .map(([d, p]) => `${d} ${p}`)
      .join(", ");
    out.push(
      `  ${i.from} → ${i.to} ${i.project_id} ${i.state ?? "-"}${by}, prices from ${i.price_period_from ?? "the start"}: ${prices === "" ? "bills nothing" : prices}`,
    );
  }
  for (const l of e.lines) {
    const parts = l.parts.map((p) => `${p.quantity} × ${p.unit_price}`).join(" + ");
    out.push(
      `  line ${l.project_id} ${l.dimension}: ${l.quantity} at ${l.unit_price} = ${l.amount} (${parts})`,
    );
  }
  for (const s of e.statements) {
    out.push(
      `  statement ${s.cloud}/${s.project_id} total ${s.total}${s.plan === null ? "" : ` under plan ${s.plan.name}`}`,
    );
    for (const t of s.plan?.tier_lines ?? [])
      out.push(`    tier line ${t.dimension}: ${t.amount.toFixed(2)}`);
    for (const m of s.plan?.minimums ?? []) out.push(`    minimum ${m.scope}: top-up ${m.amount.toFixed(2)}`);
  }
  return out;
}
