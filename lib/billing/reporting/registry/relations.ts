import type { Sql, TransactionSql } from "postgres";
import {
  ConflictError,
  type FieldError,
  NotFoundError,
  RelationCycleError,
  UnprocessableError,
} from "../../../foundation/errors/svc-error.ts";
import { jsonEqual } from "../../../foundation/json/canonical-json.ts";
import type { JsonObject, JsonValue } from "../../../foundation/json/json-value.ts";
import { reservedPlatformNames } from "../../events/event.ts";
import { pricingAdjustmentErrors } from "../../pricing/pricing-adjustments.ts";
import { pgInstant } from "../database.ts";
import { decodeCursor, pageOf } from "../reads/page-cursor.ts";

/** A relation as the API serves it (and as the engine reads the table: decision 410). */
export interface Relation {
  id: string;
  source_id: string;
  target_id: string;
  relation_type: string;
  metadata: JsonObject;
  valid_from: string;
  valid_to: string | null;
  created_at: string;
}

type Db = Sql | TransactionSql;

interface RelationRow extends Omit<Relation, "valid_to"> {
  valid_to: string | null;
}

/** Relation types that reach a virtual project (docs/reporting-api.md#projects-and-relations): their target must be meta or partner. */
const virtualRelationTypes: readonly string[] = ["managed_by", "member_of"];

const columns = (sql: Db) => sql`id::text, source_id::text, target_id::text, relation_type, metadata,
  valid_from::text, valid_to::text, created_at::text`;

function relationOf(row: RelationRow): Relation {
  return {
    ...row,
    valid_from: pgInstant(row.valid_from),
    valid_to: row.valid_to === null ? null : pgInstant(row.valid_to),
    created_at: pgInstant(row.created_at),
  };
}

/**
 * Every relation write holds this transaction lock (the two-key form, a key space apart from the
 * resource locks), so the overlap check and the cycle guard see every relation committed before them:
 * two creations that would close a cycle together run one after the other, and the second is refused.
 */
async function lockRelationGraph(tx: TransactionSql): Promise<void> {
  await tx`select pg_advisory_xact_lock(7310, 1)`;
}

function adjustmentErrors(metadata: JsonObject): FieldError[] {
  if (!Object.hasOwn(metadata, "pricing_adjustments")) return [];
  return pricingAdjustmentErrors(metadata.pricing_adjustments, "body.metadata.pricing_adjustments");
}

async function projectPlatform(tx: Db, id: string): Promise<string | null> {
  const [row] = await tx<{ platform: string }[]>`select platform from projects where id = ${id}`;
  return row?.platform ?? null;
}

/**
 * The first span in which a new relation `source -> target` from `valid_from` on would close a cycle
 * (decision 142): a path of attributing relations from the target back to the source whose spans all
 * overlap one another and the new relation's. The walk carries the span the path so far is in force
 * over, [lo, hi), and drops a path once that is empty; spans are made of stored bounds, so the
 * `union` meets each (project, lo, hi) once and the walk ends. A relation closed in the past counts
 * over its span, so a back-dated relation cannot close a cycle over a month a correction replays.
 */
async function cycleSpan(
  tx: TransactionSql,
  relation: { source_id: string; target_id: string; valid_from: string },
  attributingTypes: readonly string[],
): Promise<{ from: string; to: string | null } | null> {
  const [found] = await tx<{ lo: string; hi: string | null }[]>`
    with recursive reach(project, lo, hi) as (
      select ${relation.target_id}::uuid, ${relation.valid_from}::timestamptz, 'infinity'::timestamptz
      union
      select r.target_id, greatest(reach.lo, r.valid_from), least(reach.hi, coalesce(r.valid_to, 'infinity'))
      from project_relations r join reach on r.source_id = reach.project
      where r.relation_type = any(${attributingTypes as string[]}::text[])
        and greatest(reach.lo, r.valid_from) < least(reach.hi, coalesce(r.valid_to, 'infinity'))
    )
    select lo::text, case when hi = 'infinity' then null else hi::text end as hi
    from reach where project = ${relation.source_id}::uuid
    order by reach.lo limit 1`;
  if (found === undefined) return null;
  return { from: pgInstant(found.lo), to: found.hi === null ? null : pgInstant(found.hi) };
}

interface NewRelation {
  source_id: string;
  target_id: string;
  relation_type: string;
  metadata: JsonObject;
  /** Default: the database's now. */
  valid_from?: string | undefined;
}

interface RelationRules {
  /** Relation types the cycle guard walks (SVC_REPORTING_ATTRIBUTING_RELATION_TYPES). */
  attributingTypes: readonly string[];
  actor: string;
}

/**
 * Creates a relation. In order: the source must exist (404); the target must exist, differ from the
 * source, and be virtual for managed_by and member_of (422); pricing_adjustments must keep every rule
 * (422, all violations); the triple must not be in force over the new span (409); over an attributing
 * type it must not close a cycle (relation_cycle).
 */
export async function createRelation(sql: Sql, input: NewRelation, rules: RelationRules): Promise<Relation> {
  const invalid = adjustmentErrors(input.metadata);
  if (invalid.length > 0) throw new UnprocessableError("the pricing adjustments break the rules", invalid);
  return sql.begin(async (tx) => {
    await lockRelationGraph(tx);
    if ((await projectPlatform(tx, input.source_id)) === null) {
      throw new NotFoundError(`no project ${input.source_id}`);
    }
    const targetPlatform = await projectPlatform(tx, input.target_id);
    const refusals: FieldError[] = [];
    if (targetPlatform === null) refusals.push({ loc: "body.target_id", msg: "names no registered project" });
    else if (input.target_id === input.source_id)
      refusals.push({ loc: "body.target_id", msg: "a project cannot relate to itself" });
    else if (
      virtualRelationTypes.includes(input.relation_type) &&
      !reservedPlatformNames.includes(targetPlatform)
    )
      refusals.push({
        loc: "body.target_id",
        msg: `a ${input.relation_type} relation reaches a virtual project (platform meta or partner)`,
      });
    if (refusals.length > 0) throw new UnprocessableError("the relation cannot be made", refusals);

    const [{ from } = { from: "" }] = await tx<{ from: string }[]>`
      select coalesce(${input.valid_from ?? null}::timestamptz, now())::text as from`;
    const [overlap] = await tx<{ id: string }[]>`
      select id::text from project_relations
      where source_id = ${input.source_id} and target_id = ${input.target_id}
        and relation_type = ${input.relation_type}
        and (valid_to is null or valid_to > ${from}::timestamptz)
      limit 1`;
    if (overlap !== undefined) {
      throw new ConflictError(
        `relation ${overlap.id} of this source, target and type is still in force; close it first`,
      );
    }
    if (rules.attributingTypes.includes(input.relation_type)) {
      const cycle = await cycleSpan(tx, { ...input, valid_from: from }, rules.attributingTypes);
      if (cycle !== null) {
        throw new RelationCycleError(
          `a ${input.relation_type} relation to ${input.target_id} from ${pgInstant(from)} would close a cycle of ${rules.attributingTypes.join(", ")} relations in force together from ${cycle.from}${cycle.to === null ? " on" : ` to ${cycle.to}`}`,
        );
      }
    }
    const [row] = await tx<RelationRow[]>`
      insert into project_relations (source_id, target_id, relation_type, metadata, valid_from)
      values (${input.source_id}, ${input.target_id}, ${input.relation_type},
        ${JSON.stringify(input.metadata)}::jsonb, ${from}::timestamptz)
      returning ${columns(tx)}`;
    const relation = relationOf(row as RelationRow);
    await tx`insert into audit_log (actor, action, target, detail)
      values (${rules.actor}, 'relations.create', ${relation.id},
        ${JSON.stringify({ source_id: relation.source_id, target_id: relation.target_id, relation_type: relation.relation_type })}::jsonb)`;
    return relation;
  });
}

interface RelationChange {
  target_id?: string | undefined;
  relation_type?: string | undefined;
  metadata?: JsonObject | undefined;
  valid_to?: string | undefined;
}

/**
 * Updates a relation: `metadata` is replaced, `valid_to` closes it (a relation is never removed).
 * What the engine bills by stays fixed for the relation's lifetime: `target_id` and `relation_type`
 * may be sent back unchanged only, and so may `pricing_adjustments` (changed, added or dropped: 409).
 * A closed relation is kept as it was (409).
 */
export async function updateRelation(
  sql: Sql,
  ids: { source_id: string; relation_id: string },
  change: RelationChange,
  actor: string,
): Promise<Relation> {
  const invalid = change.metadata === undefined ? [] : adjustmentErrors(change.metadata);
  if (invalid.length > 0) throw new UnprocessableError("the pricing adjustments break the rules", invalid);
  return sql.begin(async (tx) => {
    await lockRelationGraph(tx);
    const [row] = await tx<RelationRow[]>`
      select ${columns(tx)} from project_relations
      where id = ${ids.relation_id} and source_id = ${ids.source_id} for update`;
    if (row === undefined)
      throw new NotFoundError(`no relation ${ids.relation_id} from project ${ids.source_id}`);
    const current = relationOf(row);
    if (current.valid_to !== null) {
      throw new ConflictError(
        `relation ${current.id} was closed at ${current.valid_to}; it is kept as it was`,
      );
    }
    if (change.target_id !== undefined && change.target_id !== current.target_id) {
      throw new ConflictError("the target of a relation is fixed; close it and create another");
    }
    if (change.relation_type !== undefined && change.relation_type !== current.relation_type) {
      throw new ConflictError("the type of a relation is fixed; close it and create another");
    }
    if (change.metadata !== undefined) {
      const held = current.metadata.pricing_adjustments as JsonValue | undefined;
      const sent = change.metadata.pricing_adjustments;
      if (!jsonEqual(held, sent)) {
        throw new ConflictError(
          "pricing_adjustments are fixed for the relation's lifetime; close it and create another",
        );
      }
    }
    if (change.valid_to !== undefined) {
      const [{ after } = { after: false }] = await tx<{ after: boolean }[]>`
        select ${change.valid_to}::timestamptz > ${current.valid_from}::timestamptz as after`;
      if (!after) {
        throw new UnprocessableError("a relation ends after it starts", [
          { loc: "body.valid_to", msg: `must be after valid_from (${current.valid_from})` },
        ]);
      }
    }
    const [updated] = await tx<RelationRow[]>`
      update project_relations set
        metadata = ${change.metadata === undefined ? tx`metadata` : tx`${JSON.stringify(change.metadata)}::jsonb`},
        valid_to = ${change.valid_to === undefined ? tx`valid_to` : tx`${change.valid_to}::timestamptz`}
      where id = ${current.id}
      returning ${columns(tx)}`;
    await tx`insert into audit_log (actor, action, target, detail)
      values (${actor}, ${change.valid_to === undefined ? "relations.update" : "relations.close"}, ${current.id},
        ${JSON.stringify({ members: Object.keys(change).filter((k) => change[k as keyof RelationChange] !== undefined) })}::jsonb)`;
    return relationOf(updated as RelationRow);
  });
}

interface RelationFilter {
  project_id: string;
  direction: "outgoing" | "incoming";
  relation_type?: string | undefined;
  limit: number;
  cursor?: string | undefined;
}

/** A project's relations, closed ones included, in (valid_from, id) order. */
export async function listRelations(sql: Sql, filter: RelationFilter) {
  const after = filter.cursor === undefined ? null : decodeCursor(filter.cursor, "tu");
  const side = filter.direction === "outgoing" ? sql`source_id` : sql`target_id`;
  const rows = await sql<RelationRow[]>`
    select ${columns(sql)} from project_relations
    where ${side} = ${filter.project_id}
      ${filter.relation_type === undefined ? sql`` : sql`and relation_type = ${filter.relation_type}`}
      ${after === null ? sql`` : sql`and (valid_from, id) > (${after[0] ?? ""}::timestamptz, ${after[1] ?? ""}::uuid)`}
    order by project_relations.valid_from, project_relations.id
    limit ${filter.limit + 1}`;
  return pageOf(rows, filter.limit, relationOf, (r) => [pgInstant(r.valid_from), r.id]);
}
