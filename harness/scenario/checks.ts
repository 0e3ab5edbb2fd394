import type { Comparison } from "../../lib/billing/compare/compare-oracle.ts";
import type { Oracle, OracleCount } from "../../lib/billing/simulator/oracle.ts";
import { attributingRelationType } from "../../lib/billing/statements/build-statements.ts";
import { decimal, formatMoney } from "../../lib/foundation/money/decimal.ts";
import type { IngestTotals } from "../reporting/post-event-lines.ts";
import { type Check, check } from "./check.ts";
import { clusterChecks } from "./cluster-checks.ts";
import type { ClusterSeen } from "./cluster-faults.ts";
import { type EdgesSeen, edgesChecks } from "./edges-checks.ts";
import type { CorrectionOutput, LateResource, RunOutput } from "./engine-output.ts";
import { type GoldenMonth, goldenMovements } from "./golden-month.ts";
import type { CollectorSeen } from "./month-delivery.ts";
import type { OutageSeen } from "./outage.ts";
import { type PricingSeen, pricingChecks } from "./pricing-checks.ts";
import { gardenCloud, type RegistryMade } from "./registry-plan.ts";
import type { Scenario } from "./scenario.ts";
import { type BilledMembers, syncChecks } from "./sync-checks.ts";
import type { SyncSeen } from "./sync-stage.ts";

/** A statement or credit note of an export, as the checks read it. */
export interface Total {
  cloud: string;
  project_id: string;
  total: string;
  /**
   * Present on a statement an adjustment reached, with `base_cost`; on a credit note, each adjustment's
   * `delta` in place of its `amount`.
   */
  adjustments?: { type: string; relation_id?: string; scope?: string; amount?: string; delta?: string }[];
  base_cost?: string;
  /** On a cluster manager's statement: its attributed tenants (on a credit note, with their line items). */
  related_costs?: { project_id: string; total: string; line_items?: NoteItem[] }[];
  /** On a credit note: its own resources, each dimension's `old`, `new` and `delta`. */
  line_items?: NoteItem[];
}

/** A resource's line on a credit note, as the checks read it. */
interface NoteItem {
  resource_type: string;
  resource_id: string;
  dimensions: Record<string, { delta: string }>;
}

/** What the correction stage saw: the correction (null: `no deltas`), what a second `correct` said. */
interface CorrectionSeen {
  output: CorrectionOutput | null;
  again: string | null;
  creditNotes?: Total[];
  /** Per `<cloud>/<project_id>`: the corrected month's rated lines summed. */
  correctedLines?: Record<string, string>;
}

/** What a scenario run observed, as the checks read it. */
export interface Observed {
  oracle: Oracle;
  /** Events stored for the oracle's cloud inside the month, per project and type. */
  stored: OracleCount[];
  ingest: IngestTotals;
  run: RunOutput;
  /** The bill as it stands: the correction's when one was made, else the finalized run's. */
  comparison: Comparison;
  /** With a held share: the finalized run's bill, before any correction. */
  finalizedComparison?: Comparison;
  /** On the broker path: what the collector counted, and what the one mapping makes of the files. */
  collector?: CollectorSeen;
  /** With the outage stage: what it did and what the collector's outbox held through it. */
  outage?: OutageSeen;
  /** On the clustered stack: the faults as they played, and the month's events stored exactly once. */
  cluster?: ClusterSeen;
  /** With the sync stages: what each sync did, the members the runner set, and what the bill says of them. */
  syncs?: SyncSeen & { billed: BilledMembers };
  /** The finalized run's statements. */
  statements: Total[];
  correction?: CorrectionSeen;
  /** `<type>/<id>` of every resource with at least one delivered event. */
  delivered: ReadonlySet<string>;
  /**
   * With a held share: the resources of its events dated inside the month (late by definition), the
   * resources of all its events (any of which may move the bill), how many histories the finalized run
   * read without their first event, and what `detect-late` named.
   */
  late?: {
    held: ReadonlySet<string>;
    touched: ReadonlySet<string>;
    startsLate: number;
    detected: LateResource[];
  };
  /** With a registry plan: the registry as made, and the kickback report as `engine kickbacks` and the export hold it. */
  registry?: { made: RegistryMade; kickbacks: { reported: unknown; exported: unknown } };
  /** The money-edges month: the oracle's own bill of it, whose findings its checks count. */
  edges?: EdgesSeen;
  /** With a pricing model of the scenario's own: what the oracle's bill met. */
  pricing?: PricingSeen;
  /** With golden seeds: the kept month (null when none is kept) and this run's. */
  golden?: { path: string; kept: GoldenMonth | null; now: GoldenMonth };
}

function countsCheck(observed: Observed): Check {
  const key = (c: OracleCount) => `${c.project_id} ${c.event_type}`;
  const stored = new Map(observed.stored.map((c) => [key(c), c.count]));
  const expected = new Map(observed.oracle.counts.map((c) => [key(c), c.count]));
  const details: string[] = [];
  for (const k of [...new Set([...stored.keys(), ...expected.keys()])].sort()) {
    const [project, type] = k.split(" ");
    if (stored.get(k) !== expected.get(k))
      details.push(
        `${project} ${type}: stored ${stored.get(k) ?? 0}, the oracle counts ${expected.get(k) ?? 0}`,
      );
  }
  const total = observed.oracle.counts.reduce((n, c) => n + c.count, 0);
  return check(
    details.length === 0,
    `stored events per project and type equal the oracle's counts (${total} events)`,
    details,
  );
}

function differenceLines(comparison: Comparison, only?: (resource: string) => boolean): string[] {
  return comparison.differences
    .filter((d) => only === undefined || only(d.resource))
    .map(
      (d) =>
        `${d.resource}${d.missingCreate ? " [missing-create]" : ""}: ${d.lines.map((l) => `${l.line} oracle ${l.oracle} export ${l.export}`).join("; ")}`,
    );
}

function finalizedCheck(finalized: Comparison, late: NonNullable<Observed["late"]>): Check {
  return check(
    finalized.differences.every((d) => late.touched.has(d.resource)),
    `the finalized bill differs from the oracle only on resources with held events (${finalized.differences.length} of ${late.touched.size})`,
    differenceLines(finalized, (r) => !late.touched.has(r)),
  );
}

/** Each credit note is what its project's corrected lines come to less its finalized statement. */
function creditNoteCheck(observed: Observed, correction: CorrectionSeen): Check | null {
  // With adjustments a statement is not the sum of its lines: compare --registry --corrects proves
  // those notes against the oracle (registryChecks).
  if (observed.statements.some((s) => s.adjustments !== undefined)) return null;
  const finalized = new Map(observed.statements.map((s) => [`${s.cloud}/${s.project_id}`, decimal(s.total)]));
  const notes = new Map(
    (correction.creditNotes ?? []).map((n) => [`${n.cloud}/${n.project_id}`, decimal(n.total)]),
  );
  const corrected = correction.correctedLines ?? {};
  const details: string[] = [];
  for (const key of [...new Set([...finalized.keys(), ...Object.keys(corrected)])].sort()) {
    const before = finalized.get(key) ?? decimal("0");
    const after = decimal(corrected[key] ?? "0");
    const note = notes.get(key) ?? decimal("0");
    if (!before.plus(note).eq(after))
      details.push(
        `${key}: finalized ${formatMoney(before)} + credit note ${formatMoney(note)} is not the corrected ${formatMoney(after)}`,
      );
  }
  return check(
    details.length === 0,
    `each of the ${notes.size} credit notes is its project's corrected lines less its finalized statement`,
    details,
  );
}

function correctionChecks(
  observed: Observed,
  correction: CorrectionSeen,
  late: NonNullable<Observed["late"]>,
): Check[] {
  const finalized = observed.finalizedComparison ?? observed.comparison;
  const { output } = correction;
  if (output === null)
    return [
      check(
        finalized.differences.length === 0,
        "correct finds no deltas, and the finalized bill already equals the oracle",
        differenceLines(finalized),
      ),
    ];
  const warned = output.codes.history_starts_without_create ?? 0;
  const before = observed.run.codes.history_starts_without_create ?? 0;
  const checks = [
    check(
      output.deltas > 0 && output.creditNotes > 0,
      `a correction books the late events: ${output.deltas} deltas in ${output.creditNotes} credit notes`,
    ),
    check(
      warned === before - late.startsLate,
      `the correction reads the late creates: history_starts_without_create ${before} on the finalized run, ${warned} on the correction`,
      [`expected ${before - late.startsLate}`],
    ),
    check(
      /^no deltas: /.test(correction.again ?? ""),
      "after finalizing the correction, correct again finds no deltas",
      [`it said: ${correction.again}`],
    ),
  ];
  const notes = creditNoteCheck(observed, correction);
  if (notes !== null) checks.push(notes);
  return checks;
}

/**
 * No credit-note line has a zero delta (docs/engine.md#correction-rules, rule 1): a correction stores
 * only non-zero deltas per resource, project and dimension, so every dimension a note lists, its own
 * or an attributed tenant's, moved by at least a cent.
 */
export function zeroDeltaCheck(notes: readonly Total[]): Check {
  const zeroes: string[] = [];
  let lines = 0;
  const scan = (note: Total, owner: string, items: readonly NoteItem[] | undefined) => {
    for (const item of items ?? [])
      for (const [dimension, { delta }] of Object.entries(item.dimensions)) {
        lines += 1;
        if (decimal(delta).eq(0))
          zeroes.push(
            `credit note ${note.cloud}/${note.project_id}: ${owner}${item.resource_type}/${item.resource_id} ${dimension} has a delta of ${delta}`,
          );
      }
  };
  for (const note of notes) {
    scan(note, "", note.line_items);
    for (const r of note.related_costs ?? []) scan(note, `related ${r.project_id} `, r.line_items);
  }
  return check(
    zeroes.length === 0,
    `no credit-note line has a zero delta: ${lines} lines in ${notes.length} credit notes, each moved by a cent at least`,
    zeroes,
  );
}

function comparisonChecks(scenario: Scenario, observed: Observed): Check[] {
  const { comparison, oracle } = observed;
  const late = observed.late;
  const prior: Check[] = [];
  if (scenario.expect.lateCorrected === true && late !== undefined) {
    prior.push(finalizedCheck(observed.finalizedComparison ?? comparison, late));
    if (observed.correction === undefined) {
      // Until corrections exist the finalized bill stands.
      return [
        ...prior,
        {
          status: "pending",
          text: "a correction books the late events as credit notes and the corrected bill equals the oracle (engine correct is not built yet)",
          details: [],
        },
      ];
    }
    prior.push(...correctionChecks(observed, observed.correction, late));
  }
  if (scenario.expect.comparison === "equal") {
    if (observed.correction?.output) {
      // A correction stores amount deltas only (docs/engine.md#correction-rules, rule 1): compare counts
      // a line whose quantity moved without moving its amount as kept at its finalized figure.
      const kept = comparison.kept ?? 0;
      return [
        ...prior,
        check(
          comparison.differences.length === 0,
          `the corrected bill equals the oracle to the cent: ${comparison.resources} resources compared, none differs${kept > 0 ? ` (${kept} lines keep their finalized quantity: their amount did not move)` : ""}`,
          differenceLines(comparison),
        ),
      ];
    }
    return [
      ...prior,
      check(
        comparison.differences.length === 0,
        `the bill equals the oracle: ${comparison.resources} resources compared, none differs`,
        differenceLines(comparison),
      ),
    ];
  }
  const marked = oracle.resources
    .filter((r) => r.faults.includes("missing-create"))
    .map((r) => `${r.resource_type}/${r.resource_id}`);
  const differing = new Set(comparison.differences.map((d) => d.resource));
  const markedSet = new Set(marked);
  const readable = marked.filter((r) => observed.delivered.has(r)).length;
  const warned = observed.run.codes.history_starts_without_create ?? 0;
  return [
    ...prior,
    check(
      marked.length > 0 &&
        marked.every((r) => differing.has(r)) &&
        comparison.differences.every((d) => markedSet.has(d.resource) && d.missingCreate),
      `exactly the ${marked.length} resources the oracle marks missing-create differ, each marked`,
      [
        ...differenceLines(comparison, (r) => !markedSet.has(r)).map((l) => `unmarked: ${l}`),
        ...marked.filter((r) => !differing.has(r)).map((r) => `${r} is marked and does not differ`),
      ],
    ),
    check(
      warned === readable,
      `the engine warns history_starts_without_create once per marked history it read (${readable})`,
      [`warned ${warned} times`],
    ),
  ];
}

function warningsCheck(scenario: Scenario, observed: Observed): Check {
  // Without a registry every project is unregistered, which the engine counts and bills anyway.
  const allowed = new Set(observed.registry === undefined ? ["unregistered_projects"] : []);
  // Histories read without their create: counted exactly by the missing-create and late checks.
  if (scenario.expect.comparison === "marked-missing-create" || observed.late !== undefined)
    allowed.add("metering");
  // The money edges cause these on purpose and count them exactly (edges-checks.ts).
  if (scenario.expect.edges === true)
    for (const cls of ["metering", "adjustment", "unpriced_resource_types"]) allowed.add(cls);
  const raised = Object.entries(observed.run.warnings).filter(([cls, n]) => n > 0 && !allowed.has(cls));
  return check(
    raised.length === 0,
    "the run records no warning beyond those the scenario causes",
    raised.map(([cls, n]) => `${cls}=${n}`),
  );
}

function lateChecks(late: NonNullable<Observed["late"]>, run: RunOutput): Check[] {
  const named = new Set(late.detected.map((l) => l.resource));
  const warned = run.codes.history_starts_without_create ?? 0;
  return [
    check(
      late.held.size > 0 && named.size === late.held.size && [...late.held].every((r) => named.has(r)),
      `detect-late names every resource with a held event (${late.held.size})`,
      [
        ...[...late.held].filter((r) => !named.has(r)).map((r) => `${r} has a held event and is not named`),
        ...[...named].filter((r) => !late.held.has(r)).map((r) => `${r} is named and has no held event`),
      ],
    ),
    check(
      warned === late.startsLate,
      `the finalized run warns history_starts_without_create once per history whose create came late (${late.startsLate})`,
      [`warned ${warned} times`],
    ),
  ];
}

/** The twins, told apart by their shape, are exactly what the collector counted beyond the rest of the month. */
function twinsCheck(seen: CollectorSeen): Check {
  const { counted } = seen;
  const { twins, withoutTwins } = seen.twins;
  const all = twins.oversized + twins.truncated + twins.versioned;
  return check(
    all > 0 &&
      counted.unparseable === withoutTwins.unparseable + twins.oversized + twins.truncated &&
      counted.skipped === withoutTwins.skipped + twins.versioned &&
      counted.consumed === withoutTwins.consumed,
    `the collector counted the month's ${all} refused twins as the spec says: ${twins.oversized} oversized and ${twins.truncated} truncated unparseable, ${twins.versioned} versioned skipped, none consumed`,
    [
      all === 0 ? "the month has no twin: the switch did nothing" : "",
      `it counted consumed ${counted.consumed}, skipped ${counted.skipped}, unparseable ${counted.unparseable}; the month without its twins makes consumed ${withoutTwins.consumed}, skipped ${withoutTwins.skipped}, unparseable ${withoutTwins.unparseable}`,
    ].filter((l) => l !== ""),
  );
}

function outageCheck(outage: OutageSeen): Check {
  return check(
    outage.outboxAtKill > 0 && outage.outboxAfterRestart >= outage.outboxAtKill,
    `the collector, killed (SIGKILL) while the Reporting API was down, held ${outage.outboxAtKill} events in its outbox and came back with ${outage.outboxAfterRestart}`,
    [
      outage.outboxAtKill === 0
        ? "its outbox was empty at the kill: the outage tested nothing"
        : `it came back with fewer events than it was killed with`,
    ],
  );
}

function goldenCheck(golden: NonNullable<Observed["golden"]>): Check {
  if (golden.kept === null)
    return check(false, `golden month kept in ${golden.path}`, [
      "none is kept: write it with `bun scenario refresh-golden`",
    ]);
  const moved = goldenMovements(golden.kept, golden.now);
  return check(
    moved.length === 0,
    `${Object.keys(golden.now.statements).length} statement and ${Object.keys(golden.now.credit_notes).length} credit note totals equal the golden month (${golden.path})`,
    moved,
  );
}

/** The registry's checks (decision 522): the statements against the oracle's, and that each part played. */
function registryChecks(observed: Observed): Check[] {
  const registry = observed.registry;
  const compared = observed.comparison.statements;
  if (registry === undefined || compared === undefined)
    return [check(false, "the registry played", ["no registry was made, or compare did not read it"])];
  const lines = observed.statements.flatMap((s) => s.adjustments ?? []);
  const checks = [
    check(
      compared.differences.length === 0,
      compared.compared === "credit notes"
        ? `the credit notes and kickback deltas are the oracle's statements and settlements less the finalized ones, as the registry attributes and adjusts them: ${compared.statements} credit notes and ${compared.settlements} kickback settlements compared`
        : `the statements equal the oracle's as the registry attributes and adjusts them: ${compared.statements} statements with ${lines.length} adjustment lines and ${compared.settlements} kickback settlements compared`,
      compared.differences.map(
        (d) =>
          `${d.subject}: ${d.lines.map((l) => `${l.line} oracle ${l.oracle} export ${l.export}`).join("; ")}`,
      ),
    ),
  ];
  const declared = [
    ...new Set(registry.made.plan.relations.flatMap((r) => r.adjustments.map((a) => a.type))),
  ].sort();
  const billed = (type: string) =>
    lines.filter((l) => l.type === type && !decimal(l.amount ?? "0").eq(0)).length;
  checks.push(
    check(
      declared.every((t) => billed(t) > 0),
      `every adjustment type the plan declares bills a line: ${declared.map((t) => `${t} ${billed(t)}`).join(", ")}`,
      declared.filter((t) => billed(t) === 0).map((t) => `no ${t} line with an amount`),
    ),
  );
  const { projects, relations } = registry.made.snapshot;
  const byId = new Map(projects.map((p) => [p.id, p]));
  const withEvents = new Set(observed.oracle.counts.map((c) => c.project_id));
  const statements = new Map(observed.statements.map((s) => [`${s.cloud}/${s.project_id}`, s]));
  const attributions = relations
    .filter((r) => r.relation_type === attributingRelationType)
    .map((r) => ({ manager: byId.get(r.source_id), tenant: byId.get(r.target_id) }))
    .filter((a) => a.tenant !== undefined && withEvents.has(a.tenant.external_id));
  const wrong = attributions.filter(
    ({ manager, tenant }) =>
      manager?.cloud !== gardenCloud ||
      statements.has(`${tenant?.cloud}/${tenant?.external_id}`) ||
      !(statements.get(`${manager.cloud}/${manager.external_id}`)?.related_costs ?? []).some(
        (r) => r.project_id === tenant?.external_id,
      ),
  );
  checks.push(
    check(
      attributions.length > 0 && wrong.length === 0,
      `each cluster manager's statement carries its infrastructure tenant, which has none of its own: ${attributions.map((a) => `${a.manager?.external_id} bills ${a.tenant?.external_id}`).join(", ")}`,
      [
        attributions.length === 0 ? "no infrastructure tenant had costs" : "",
        ...wrong.map((a) => `${a.tenant?.external_id} is not on ${a.manager?.external_id}'s statement alone`),
      ].filter((l) => l !== ""),
    ),
  );
  const { reported, exported } = registry.kickbacks;
  const beneficiaries =
    (reported as { beneficiaries?: { beneficiary: string; kickback_total: string }[] }).beneficiaries ?? [];
  checks.push(
    check(
      JSON.stringify(reported) === JSON.stringify(exported) &&
        beneficiaries.length > 0 &&
        beneficiaries.every((b) => decimal(b.kickback_total).gt(0)),
      `engine kickbacks reports what the export's kickbacks.json holds: ${beneficiaries.map((b) => `${b.beneficiary} is owed ${b.kickback_total}`).join(", ")}`,
      [
        JSON.stringify(reported) === JSON.stringify(exported)
          ? "a beneficiary is owed nothing, or there is none"
          : "engine kickbacks and the export's kickbacks.json differ",
      ],
    ),
  );
  return checks;
}

/** Every check of a run: what every scenario proves, then what its declaration adds. */
export function scenarioChecks(scenario: Scenario, observed: Observed): Check[] {
  const checks = [
    countsCheck(observed),
    check(
      observed.ingest.rejected === 0,
      `ingest refused none of the ${observed.ingest.posted} events posted`,
      [`${observed.ingest.rejected} refused: see the Reporting API's rejected_events`],
    ),
  ];
  if (observed.outage !== undefined) checks.push(outageCheck(observed.outage));
  if (observed.cluster !== undefined) checks.push(...clusterChecks(observed.cluster));
  // After an outage the collector's counters began again with its process: the stored events speak.
  if (observed.collector !== undefined && observed.outage === undefined) {
    const { counted, expected } = observed.collector;
    checks.push(
      check(
        counted.consumed === expected.consumed &&
          counted.skipped === expected.skipped &&
          counted.unparseable === expected.unparseable,
        `the collector counted every notification as the one mapping does: consumed ${expected.consumed}, skipped ${expected.skipped}, unparseable ${expected.unparseable}`,
        [
          `it counted consumed ${counted.consumed}, skipped ${counted.skipped}, unparseable ${counted.unparseable}`,
        ],
      ),
    );
  }
  if (scenario.faults.includes("refused-shapes") && observed.collector !== undefined)
    checks.push(twinsCheck(observed.collector));
  if (scenario.expect.duplicatesDeduplicated === true) {
    checks.push(
      check(
        observed.ingest.duplicates > 0,
        `ingest stored each repeated event once (${observed.ingest.duplicates} duplicates)`,
        ["no duplicate was counted"],
      ),
    );
  }
  if (observed.late !== undefined) checks.push(...lateChecks(observed.late, observed.run));
  if (observed.syncs !== undefined) checks.push(...syncChecks(observed.syncs, observed.oracle));
  checks.push(warningsCheck(scenario, observed), ...comparisonChecks(scenario, observed));
  // Every scenario's export: a month without a correction has no note, and says so.
  checks.push(zeroDeltaCheck(observed.correction?.creditNotes ?? []));
  if (scenario.expect.adjusted === true) checks.push(...registryChecks(observed));
  if (scenario.expect.edges === true) checks.push(...edgesChecks(observed));
  if (scenario.expect.priced === true)
    checks.push(
      ...(observed.pricing === undefined
        ? [check(false, "the scenario's pricing model played", ["the run rated with no model of its own"])]
        : pricingChecks(observed.pricing, observed.correction?.creditNotes)),
    );
  if (observed.golden !== undefined) checks.push(goldenCheck(observed.golden));
  return checks;
}

/** A run passes when no check failed (a pending one waits for a program, and says so). */
export function passed(checks: readonly Check[]): boolean {
  return checks.every((c) => c.status !== "fail");
}
