import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import type { JsonValue } from "../../foundation/json/json-value.ts";
import { decimal, formatMoney, formatRate, sum } from "../../foundation/money/decimal.ts";
import { RunWarnings } from "../metering/run-warnings.ts";
import { OracleRegistry, type OracleRelation } from "../simulator/oracle-bill/oracle-registry.ts";
import { type OracleStatement, oracleStatements } from "../simulator/oracle-bill/oracle-statements.ts";
import { buildStatements, type ProjectCost, type Statement } from "../statements/build-statements.ts";
import { Registry } from "../statements/registry.ts";

/**
 * The adjustment walk and apportionment over random registries and random partial-month spans
 * (issue 29): the engine's `buildStatements` and the oracle's own statements agree figure for figure,
 * every line's shares sum to it, no relation is applied twice, and neither depends on the order its
 * input comes in.
 */
const month = { name: "2026-10", from: "2026-10-01T00:00:00.000Z", to: "2026-11-01T00:00:00.000Z" };
const hour = 3_600_000;
const fromMs = Date.parse(month.from);
const toMs = Date.parse(month.to);
const iso = (ms: number) => new Date(ms).toISOString();

/** Instants around the month: before it, on its edges, inside it on and off the hour, after it. */
const instant = fc.oneof(
  fc.constant(fromMs - 30 * 24 * hour),
  fc.constant(fromMs),
  fc.constant(toMs),
  fc.constant(toMs + 24 * hour),
  fc.integer({ min: 1, max: 743 }).map((h) => fromMs + h * hour),
  fc.integer({ min: 1, max: 744 * hour - 1 }).map((ms) => fromMs + ms),
);
/** Half the relations span the whole month; the others start or end anywhere around it. */
const span = fc.oneof(
  fc.constant({ valid_from: iso(fromMs - 30 * 24 * hour), valid_to: null }),
  fc
    .tuple(instant, fc.option(instant, { nil: null }))
    .filter(([start, end]) => end === null || end > start)
    .map(([start, end]) => ({ valid_from: iso(start), valid_to: end === null ? null : iso(end) })),
);

const rate = fc.oneof(
  fc.constantFrom("0", "1", "0.5", "0.015", "0.005", "0.035", "0.125", "0.333333"),
  fc.integer({ min: 0, max: 999_999 }).map((n) => `0.${String(n).padStart(6, "0")}`),
);
const scope = fc.constantFrom(
  "all",
  "platform_a",
  "platform_a.instance",
  "platform_a.volume",
  "platform_b",
  "x.y",
);
const adjustment = fc.record({
  type: fc.constantFrom("surcharge", "discount", "project_discount", "kickback"),
  rate,
  scope,
});
/** A stored array: mostly readable, now and then broken (a rate past 1). */
const adjustments = fc.oneof(
  { weight: 19, arbitrary: fc.array(adjustment, { minLength: 1, maxLength: 3 }) },
  { weight: 1, arbitrary: fc.constant<JsonValue[]>([{ type: "discount", rate: "1.5", scope: "all" }]) },
);

const tenants = ["t0", "t1", "t2", "t3", "t4"];
const virtual = ["v0", "v1", "v2", "v3", "v4"];
const managers = ["m0", "m1"];
const projects = [
  ...tenants.map((id) => ({ id, platform: "platform_a", cloud: "c1", external_id: id })),
  ...virtual.map((id, i) => ({ id, platform: i % 2 === 0 ? "partner" : "meta", cloud: "", external_id: id })),
  ...managers.map((id) => ({ id, platform: "gardener", cloud: "g1", external_id: id })),
].map((p) => ({ ...p, cloud: p.cloud === "" ? p.platform : p.cloud }));

/** A project's relation to a virtual one: mostly from a tenant or a manager to the first levels, or up the virtual ones (v0 → v1 → … : walks several levels deep, with ways that meet). */
const walking = fc
  .oneof(
    fc.tuple(fc.constantFrom(...tenants, ...managers), fc.constantFrom("v0", "v1", "v2")),
    fc
      .tuple(fc.integer({ min: 0, max: 3 }), fc.integer({ min: 1, max: 2 }))
      .map(([i, step]) => [virtual[i] as string, virtual[Math.min(i + step, 4)] as string]),
    fc.tuple(fc.constantFrom(...virtual), fc.constantFrom(...virtual)),
  )
  .chain(([source, target]) =>
    fc.record({
      source: fc.constant(source),
      target: fc.constant(target),
      relation_type: fc.constantFrom("managed_by", "member_of"),
      adjustments: fc.option(adjustments, { nil: undefined, freq: 5 }),
    }),
  );
const attributing = fc.record({
  source: fc.constantFrom(...managers, ...tenants),
  target: fc.constantFrom(...tenants, ...managers),
  relation_type: fc.constant("infrastructure_tenant"),
  adjustments: fc.constant(undefined),
});
const relations = fc
  .array(fc.tuple(fc.oneof({ weight: 4, arbitrary: walking }, { weight: 1, arbitrary: attributing }), span), {
    minLength: 4,
    maxLength: 24,
  })
  .map((drawn) =>
    drawn
      .filter(([r]) => r.source !== r.target)
      .map(
        ([r, s], i): OracleRelation => ({
          id: `r${String(i).padStart(2, "0")}`,
          source_id: r.source,
          target_id: r.target,
          relation_type: r.relation_type,
          metadata: r.adjustments === undefined ? {} : { pricing_adjustments: r.adjustments },
          ...s,
        }),
      ),
  );

const buckets = ["platform_a.instance", "platform_a.volume", "platform_a.floating_ip", "platform_b.instance"];
const costs = fc
  .array(
    fc.record({
      project: fc.constantFrom(...tenants, ...managers, "stray"),
      bucket: fc.constantFrom(...buckets),
      // Round amounts too, so that equal buckets and lines on half a cent come up.
      cents: fc.oneof(
        fc.integer({ min: 0, max: 2_000_000 }),
        fc.constantFrom(0, 1, 5, 15, 25, 100, 200, 1000),
      ),
    }),
    { minLength: 3, maxLength: 24 },
  )
  .map((lines) => {
    const byProject = new Map<string, ProjectCost>();
    for (const { project, bucket, cents } of lines) {
      const [platform, resource_type] = bucket.split(".") as [string, string];
      const cloud = managers.includes(project) ? "g1" : "c1";
      const cost = byProject.get(project) ?? { cloud, project_id: project, buckets: [] };
      byProject.set(project, cost);
      const held = cost.buckets.find((b) => b.platform === platform && b.resource_type === resource_type);
      const amount = decimal(formatMoney(decimal(String(cents)).div(100)));
      if (held === undefined) cost.buckets.push({ platform, resource_type, amount });
      else held.amount = held.amount.plus(amount);
    }
    return [...byProject.values()];
  });
const walk = fc.record({
  types: fc.constantFrom(
    ["managed_by", "member_of"],
    ["member_of"],
    ["managed_by", "member_of", "infrastructure_tenant"],
  ),
  depth: fc.integer({ min: 1, max: 5 }),
});

const cents = (x: { toFixed(n: number): string }) => x.toFixed(2);

function engineStatements(
  input: { costs: ProjectCost[]; relations: OracleRelation[] },
  w: { types: readonly string[]; depth: number },
): { statements: Statement[]; dropped: number } {
  const registry = new Registry(
    projects.map((p) => ({ id: p.id, platform: p.platform, cloud: p.cloud, externalId: p.external_id })),
    input.relations.map((r) => ({
      id: r.id,
      sourceId: r.source_id,
      targetId: r.target_id,
      relationType: r.relation_type,
      metadata: r.metadata,
      validFrom: r.valid_from,
      validTo: r.valid_to,
    })),
    month,
  );
  const warnings = new RunWarnings();
  const statements = buildStatements(
    input.costs,
    registry,
    { relationTypes: w.types, depth: w.depth },
    warnings,
  );
  return { statements, dropped: warnings.count("adjustment_kickback_target_not_partner") };
}

function oracleOf(
  input: { costs: ProjectCost[]; relations: OracleRelation[] },
  w: { types: readonly string[]; depth: number },
) {
  const findings = { kickbacksDropped: 0, deepestLevel: 0, metAgain: 0, beyond: 0 };
  const statements = oracleStatements(
    input.costs.map((c) => ({
      cloud: c.cloud,
      project_id: c.project_id,
      buckets: c.buckets.map((b) => ({ ...b, amount: BigInt(b.amount.times(100).toFixed(0)) })),
    })),
    new OracleRegistry(
      { projects, relations: input.relations, adjustment_relation_types: w.types, adjustment_depth: w.depth },
      month,
    ),
    w,
    findings,
  );
  return { statements, dropped: findings.kickbacksDropped, findings };
}

const fromCents = (c: bigint) => formatMoney(decimal(c.toString()).div(100));

/** A statement's figures as text, the same for both sides. */
const engineFigures = (s: Statement) => ({
  key: `${s.cloud}/${s.project_id}`,
  base: cents(s.base_cost),
  net: cents(s.net_cost),
  kickback: cents(s.kickback_total),
  total: cents(s.total),
  error: s.error !== null,
  related: s.related.map((r) => `${r.project_id}#${r.relation_id}=${cents(r.total)}`),
  lines: s.adjustments.map(
    (a) =>
      `${a.type}:${a.scope}:${formatRate(a.rate)}@${a.relation_target}#${a.relation_id} ${cents(a.amount)} on ${cents(a.base)}: ${a.shares.map((x) => `${x.platform}.${x.resource_type}=${cents(x.amount)}`).join(",")}`,
  ),
});
const oracleFigures = (s: OracleStatement) => ({
  key: `${s.cloud}/${s.project_id}`,
  base: fromCents(s.base),
  net: fromCents(s.net),
  kickback: fromCents(s.kickback),
  total: fromCents(s.total),
  error: s.error !== null,
  related: s.related.map((r) => `${r.project_id}#${r.relation_id}=${fromCents(r.total)}`),
  lines: s.adjustments.map(
    (a) =>
      `${a.type}:${a.scope}:${a.rate}@${a.relation_target}#${a.relation_id} ${fromCents(a.amount)} on ${fromCents(a.base)}: ${a.shares.map((x) => `${x.platform}.${x.resource_type}=${fromCents(x.amount)}`).join(",")}`,
  ),
});

const shuffled = <T>(items: readonly T[], seed: number): T[] => {
  const out = [...items];
  let s = seed;
  for (let i = out.length - 1; i > 0; i--) {
    s = (s * 1_103_515_245 + 12_345) % 2_147_483_648;
    const j = s % (i + 1);
    [out[i], out[j]] = [out[j] as T, out[i] as T];
  }
  return out;
};

const month$ = fc.record({ costs, relations, walk });

describe("the adjustment walk and apportionment over random registries (issue 29)", () => {
  test("the engine's statements are the oracle's, figure for figure, warnings too", () => {
    fc.assert(
      fc.property(month$, ({ costs: c, relations: r, walk: w }) => {
        const engine = engineStatements({ costs: c, relations: r }, w);
        const oracle = oracleOf({ costs: c, relations: r }, w);
        expect(engine.statements.map(engineFigures)).toEqual(oracle.statements.map(oracleFigures));
        expect(engine.dropped).toBe(oracle.dropped);
      }),
      { numRuns: 400 },
    );
  });

  test("every line's shares sum to it, and no relation is applied more often than its array says", () => {
    fc.assert(
      fc.property(month$, ({ costs: c, relations: r, walk: w }) => {
        const declared = new Map(r.map((x) => [x.id, x.metadata.pricing_adjustments]));
        for (const s of engineStatements({ costs: c, relations: r }, w).statements) {
          for (const line of s.adjustments)
            expect(cents(sum(line.shares.map((x) => x.amount)))).toBe(cents(line.amount));
          const applied = new Map<string, number>();
          for (const line of s.adjustments)
            applied.set(line.relation_id, (applied.get(line.relation_id) ?? 0) + 1);
          for (const [id, n] of applied)
            expect(n).toBeLessThanOrEqual((declared.get(id) as unknown[]).length);
        }
      }),
      { numRuns: 300 },
    );
  });

  test("a relation bills only when its span overlaps the month, one span per triple (the latest), each entry of its array at most once", () => {
    fc.assert(
      fc.property(month$, ({ costs: c, relations: r, walk: w }) => {
        const overlaps = (x: OracleRelation) =>
          Date.parse(x.valid_from) < toMs && (x.valid_to === null || Date.parse(x.valid_to) > fromMs);
        const latest = new Map<string, OracleRelation>();
        for (const x of r.filter(overlaps)) {
          const triple = `${x.source_id} ${x.target_id} ${x.relation_type}`;
          const held = latest.get(triple);
          const start = Date.parse(x.valid_from);
          if (
            held === undefined ||
            start > Date.parse(held.valid_from) ||
            (start === Date.parse(held.valid_from) && x.id < held.id)
          )
            latest.set(triple, x);
        }
        const counted = new Set([...latest.values()].map((x) => x.id));
        const entries = new Map(
          r.map((x) => [
            x.id,
            ((x.metadata.pricing_adjustments ?? []) as { type: string; rate: string; scope: string }[]).map(
              (a) => `${a.type} ${a.scope} ${formatRate(decimal(a.rate))}`,
            ),
          ]),
        );
        const { statements } = oracleOf({ costs: c, relations: r }, w);
        const engine = engineStatements({ costs: c, relations: r }, w).statements;
        for (const s of engine) {
          const left = new Map([...entries].map(([id, list]) => [id, [...list]]));
          for (const line of s.adjustments) {
            expect(counted.has(line.relation_id)).toBe(true);
            const list = left.get(line.relation_id) ?? [];
            const at = list.indexOf(`${line.type} ${line.scope} ${formatRate(line.rate)}`);
            // Each entry of the relation's array gives at most one line on a statement.
            expect(at).toBeGreaterThanOrEqual(0);
            list.splice(at, 1);
          }
        }
        for (const s of statements)
          for (const line of s.adjustments) {
            expect(counted.has(line.relation_id)).toBe(true);
            expect(line.shares.reduce((a, x) => a + x.amount, 0n)).toBe(line.amount);
          }
      }),
      { numRuns: 300 },
    );
  });

  test("the months drawn reach the edges: walks past two levels and past the depth, relations met twice, non-partner kickbacks, partial spans, shares on half a cent", () => {
    const seen = { deep: 0, beyond: 0, metAgain: 0, dropped: 0, partial: 0, shareTies: 0 };
    for (const { costs: c, relations: r, walk: w } of fc.sample(month$, { numRuns: 300, seed: 29 })) {
      const { findings, statements } = oracleOf({ costs: c, relations: r }, w);
      if (findings.deepestLevel > 2) seen.deep += 1;
      if (findings.beyond > 0) seen.beyond += 1;
      if (findings.metAgain > 0) seen.metAgain += 1;
      if (findings.kickbacksDropped > 0) seen.dropped += 1;
      const lines = statements.flatMap((s) => s.adjustments);
      const partial = new Set(
        r
          .filter(
            (x) =>
              Date.parse(x.valid_from) > fromMs || (x.valid_to !== null && Date.parse(x.valid_to) < toMs),
          )
          .map((x) => x.id),
      );
      if (lines.some((l) => partial.has(l.relation_id))) seen.partial += 1;
      if (lines.some((l) => l.shares.some((x) => x.tie))) seen.shareTies += 1;
    }
    expect(Object.entries(seen).filter(([, n]) => n === 0)).toEqual([]);
  });

  test("the statements do not depend on the order of the projects' costs, their buckets or the relations", () => {
    fc.assert(
      fc.property(
        month$,
        fc.integer({ min: 1, max: 1_000_000 }),
        ({ costs: c, relations: r, walk: w }, seed) => {
          const again = {
            costs: shuffled(c, seed).map((x) => ({ ...x, buckets: shuffled(x.buckets, seed + 1) })),
            relations: shuffled(r, seed + 2),
          };
          expect(engineStatements(again, w).statements.map(engineFigures)).toEqual(
            engineStatements({ costs: c, relations: r }, w).statements.map(engineFigures),
          );
          expect(oracleOf(again, w).statements.map(oracleFigures)).toEqual(
            oracleOf({ costs: c, relations: r }, w).statements.map(oracleFigures),
          );
        },
      ),
      { numRuns: 300 },
    );
  });
});
