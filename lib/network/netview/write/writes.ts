/**
 * Guarded writes to a cluster's northbound database (docs/netview.md "Writes", decisions 355-357):
 * every write is first a prepared plan (preview, dry-run, failover, evacuate, rollback, restore);
 * applying it runs one transaction that waits on what the plan read, and is audited before and after.
 */
import {
  ConflictError,
  NotFoundError,
  SvcError,
  UnavailableError,
  ValidationError,
} from "../../../foundation/errors/svc-error.ts";
import { isJsonObject } from "../../../foundation/json/is-json-object.ts";
import type { Row } from "../../ovsdb/datum.ts";
import type { OvsdbLogger } from "../../ovsdb/ovsdb-client.ts";
import { rowDelta } from "../../ovsdb/row-diff.ts";
import { type BaseType, type ColumnSchema, columnKind, type DatabaseSchema } from "../../ovsdb/schema.ts";
import type { Cluster, ClusterSet } from "../cluster.ts";
import type { Snapshots } from "../snapshots/snapshots.ts";
import type { Actor, AuditAction, AuditStore } from "./audit-store.ts";
import { evacuateChanges, failoverChanges, findGroup, gatewayGroups } from "./gateway-moves.ts";
import {
  outcomeOf,
  type Plan,
  type PlanKind,
  type PlannedChange,
  type PlanResult,
  placeholder,
  predictEffect,
  transactionOf,
} from "./plan.ts";
import { uniquenessProblems, valueProblems } from "./plan-checks.ts";
import type { PlanStore } from "./plan-store.ts";
import { changesToward, type RowTarget } from "./target-changes.ts";
import { readWriteRequest, refuseUnstorableText } from "./write-operations.ts";

interface WritesOptions {
  clusters: ClusterSet;
  plans: PlanStore;
  audit: AuditStore;
  snapshots: Snapshots;
  now?: () => number;
  /** How long a prepared plan may wait for its apply (default 15 minutes). */
  planTtlMs?: number;
  log?: OvsdbLogger;
}

/** Tables a restore leaves alone unless named: global settings and the database's own listeners. */
const restoreSkips = ["NB_Global", "Connection", "SSL"];

type Body = Record<string, unknown>;

function bodyOf(body: unknown, members: readonly string[], required: readonly string[]): Body {
  if (!isJsonObject(body))
    throw new ValidationError(`invalid body: expected an object with ${required.join(", ")}`);
  refuseUnstorableText(body);
  const problems: string[] = [];
  for (const key of Object.keys(body)) if (!members.includes(key)) problems.push(`${key}: not a member`);
  for (const key of members) {
    const value = body[key];
    if (value === undefined) {
      if (required.includes(key)) problems.push(`${key}: required`);
    } else if (key === "tables") {
      if (!Array.isArray(value) || !value.every((t) => typeof t === "string"))
        problems.push("tables: must be an array of table names");
    } else if (typeof value !== "string" || value.length > 500) {
      problems.push(`${key}: must be a string of at most 500 characters`);
    }
  }
  if (problems.length > 0) throw new ValidationError(`invalid body: ${problems.join("; ")}`);
  return body;
}

const text = (body: Body, key: string) => body[key] as string | undefined;

/** What the schema says of a column's atoms beyond their type, as the write schema shows it. */
function rulesOf(name: string, base: BaseType): Record<string, Record<string, unknown>> {
  const rules = {
    ...(base.enum === undefined ? {} : { enum: base.enum }),
    ...(base.minimum === undefined ? {} : { minimum: base.minimum }),
    ...(base.maximum === undefined ? {} : { maximum: base.maximum }),
    ...(base.minLength === undefined ? {} : { min_length: base.minLength }),
    ...(base.maxLength === undefined ? {} : { max_length: base.maxLength }),
    ...(base.refType === undefined ? {} : { ref_type: base.refType }),
  };
  return Object.keys(rules).length === 0 ? {} : { [name]: rules };
}

export class Writes {
  private readonly now: () => number;
  private readonly applying = new Set<string>();

  constructor(private readonly options: WritesOptions) {
    this.now = options.now ?? Date.now;
  }

  private instant(offsetMs = 0): string {
    return new Date(this.now() + offsetMs).toISOString();
  }

  /** The cluster's NB, live and synced, or a refusal saying why not. */
  private live(clusterName: string | undefined): { cluster: Cluster; schema: DatabaseSchema } {
    const cluster = this.options.clusters.resolve(clusterName);
    if (cluster.suspended)
      throw new ConflictError(`cluster ${cluster.name} answers from a loaded snapshot: unload it first`);
    const schema = cluster.nb.cache.schema;
    if (schema === undefined)
      throw new UnavailableError(`cluster ${cluster.name}: northbound database not synced yet`);
    return { cluster, schema };
  }

  /** What can be changed: the server's NB tables and columns, and the actions. */
  schema(clusterName: string | undefined) {
    const { cluster, schema } = this.live(clusterName);
    const tables = Object.fromEntries(
      Object.values(schema.tables).map((table) => [
        table.name,
        {
          root: table.isRoot,
          columns: Object.fromEntries(
            table.columnNames.map((name) => {
              const { type, mutable } = table.columns[name] as ColumnSchema;
              return [
                name,
                {
                  kind: columnKind(type),
                  key: type.key.type,
                  ...(type.key.refTable === undefined ? {} : { ref_table: type.key.refTable }),
                  ...(type.value === undefined ? {} : { value: type.value.type }),
                  ...(type.value?.refTable === undefined ? {} : { value_ref_table: type.value.refTable }),
                  min: type.min,
                  max: type.max === Number.POSITIVE_INFINITY ? "unlimited" : type.max,
                  mutable,
                  ...rulesOf("key_rules", type.key),
                  ...(type.value === undefined ? {} : rulesOf("value_rules", type.value)),
                },
              ];
            }),
          ),
          indexes: table.indexes,
          ...(table.maxRows === undefined ? {} : { max_rows: table.maxRows }),
        },
      ]),
    );
    return {
      cluster: cluster.name,
      database: { name: schema.name, version: schema.version },
      plan_ttl_ms: this.ttl,
      operations: {
        insert: { table: "T", row: { "<column>": "<value>" }, ref: "name used as @name in later operations" },
        update: { table: "T", uuid: "<uuid> (or name)", set: { "<column>": "<value>" } },
        delete: { table: "T", uuid: "<uuid> (or name)" },
      },
      actions: {
        failover: {
          router_port: "<name or uuid> (or ha_chassis_group)",
          to_chassis: "<chassis name>, optional",
        },
        evacuate: { chassis: "<chassis name>" },
        rollback: { plan: "<id of an applied plan>" },
        restore: {
          snapshot: "<snapshot id>",
          tables: `[<NB table>], optional; default every table but ${restoreSkips.join(", ")}`,
        },
      },
      tables,
    };
  }

  private get ttl(): number {
    return this.options.planTtlMs ?? 15 * 60_000;
  }

  private prepare(
    kind: PlanKind,
    where: { cluster: Cluster; schema: DatabaseSchema },
    what: { description: string; changes: PlannedChange[]; source: Plan["source"]; serverChecked: boolean },
    actor: Actor,
  ): Plan {
    const cache = where.cluster.nb.cache;
    // Row operations were read against the schema already; what netview builds (from a snapshot,
    // the monitor, the gateways) is held to the same rules before it can reach the server.
    if (kind !== "preview" && kind !== "dry-run") this.check(kind, where.schema, what.changes, cache);
    const plan: Plan = {
      id: crypto.randomUUID(),
      kind,
      cluster: where.cluster.name,
      state: "prepared",
      description: what.description,
      created_at: this.instant(),
      created_by: actor.actor,
      expires_at: this.instant(this.ttl),
      server_checked: what.serverChecked,
      source: what.source,
      changes: what.changes,
      effect: predictEffect(where.schema, what.changes, (t, u) => cache.get(t, u)),
      finished_at: null,
      result: null,
    };
    this.options.plans.save(plan);
    this.record("plan", plan, actor, "prepared", null, plan.created_at);
    return plan;
  }

  private check(
    kind: PlanKind,
    schema: DatabaseSchema,
    changes: PlannedChange[],
    cache: Cluster["nb"]["cache"],
  ) {
    const where = (i: number) => {
      const change = changes[i] as PlannedChange;
      return `${change.table} ${change.kind === "insert" ? placeholder(change, i) : change.uuid}`;
    };
    const problems = changes.flatMap((change, i) => {
      const table = schema.tables[change.table];
      if (change.kind === "delete" || table === undefined) return [];
      const columns = change.kind === "insert" ? change.row : change.after;
      return Object.entries(columns).flatMap(([column, value]) =>
        valueProblems(value, table, column, `${where(i)}.${column}`),
      );
    });
    problems.push(...uniquenessProblems(schema, changes, cache, where));
    if (problems.length > 0) {
      throw new ConflictError(
        `the ${kind} plan would break the northbound schema: ${problems.slice(0, 10).join("; ")}`,
      );
    }
  }

  private record(
    action: AuditAction,
    plan: Plan,
    actor: Actor,
    result: string,
    error: string | null,
    finishedAt: string | null,
  ) {
    const summary = { inserted: 0, updated: 0, deleted: 0 };
    for (const c of plan.changes)
      summary[c.kind === "insert" ? "inserted" : c.kind === "update" ? "updated" : "deleted"]++;
    return this.options.audit.add({
      ...actor,
      at: this.instant(),
      action,
      kind: plan.kind,
      plan_id: plan.id,
      cluster: plan.cluster,
      result,
      error,
      summary,
      changes: plan.changes,
      finished_at: finishedAt,
    });
  }

  /** Preview (from the cache alone) or dry-run (the server also runs the operations and rolls back). */
  async preview(body: unknown, actor: Actor, dryRun: boolean): Promise<Plan> {
    const cluster = isJsonObject(body) && typeof body.cluster === "string" ? body.cluster : undefined;
    const where = this.live(cluster);
    const cache = where.cluster.nb.cache;
    const request = readWriteRequest(body, where.schema, cache);
    if (dryRun) {
      const tx = transactionOf(where.schema, request, "netview dry-run");
      const result = await this.transact(where.cluster, [...tx.operations, { op: "abort" }]);
      const outcome = outcomeOf(request, tx, result.slice(0, tx.operations.length));
      if (outcome.state === "stale") throw new ConflictError(`dry-run: ${outcome.error}`);
      if (outcome.state === "failed")
        throw new SvcError("unprocessable", `dry-run: the server refuses the operations: ${outcome.error}`);
    }
    return this.prepare(
      dryRun ? "dry-run" : "preview",
      where,
      { description: request.description, changes: request.changes, source: null, serverChecked: dryRun },
      actor,
    );
  }

  private presentChassis(cluster: Cluster): Set<string> {
    return new Set(cluster.sb.cache.rows("Chassis").map((r) => String(r.name)));
  }

  failover(raw: unknown, actor: Actor): Plan {
    const body = bodyOf(raw, ["cluster", "router_port", "ha_chassis_group", "to_chassis", "description"], []);
    if (body.router_port !== undefined && body.ha_chassis_group !== undefined)
      throw new ValidationError("invalid body: router_port, ha_chassis_group: name one of them, not both");
    const where = this.live(text(body, "cluster"));
    const nb = where.cluster.nb.cache;
    const by = {
      ...(text(body, "router_port") === undefined
        ? {}
        : { router_port: text(body, "router_port") as string }),
      ...(text(body, "ha_chassis_group") === undefined
        ? {}
        : { ha_chassis_group: text(body, "ha_chassis_group") as string }),
    };
    const group = findGroup(nb, by);
    const changes = failoverChanges(group, text(body, "to_chassis"), this.presentChassis(where.cluster));
    const to = group.members.find((m) => m.uuid === (changes[1] as { uuid: string }).uuid)?.chassis;
    return this.prepare(
      "failover",
      where,
      {
        description:
          text(body, "description") ?? `failover of ${group.name} from ${group.members[0]?.chassis} to ${to}`,
        changes,
        source: null,
        serverChecked: false,
      },
      actor,
    );
  }

  evacuate(raw: unknown, actor: Actor): Plan {
    const body = bodyOf(raw, ["cluster", "chassis", "description"], ["chassis"]);
    const where = this.live(text(body, "cluster"));
    const chassis = text(body, "chassis") as string;
    const { changes, moved } = evacuateChanges(
      gatewayGroups(where.cluster.nb.cache),
      chassis,
      this.presentChassis(where.cluster),
    );
    return this.prepare(
      "evacuate",
      where,
      {
        description:
          text(body, "description") ??
          `evacuate ${chassis}: ${moved.map((m) => `${m.gateway} to ${m.to}`).join(", ")}`,
        changes,
        source: null,
        serverChecked: false,
      },
      actor,
    );
  }

  rollback(raw: unknown, actor: Actor): Plan {
    const body = bodyOf(raw, ["plan", "description"], ["plan"]);
    const original = this.get(text(body, "plan") as string);
    if (original.state !== "applied" || original.result === null) {
      throw new ConflictError(
        `plan ${original.id} is ${original.state}: only an applied plan can be rolled back`,
      );
    }
    const where = this.live(original.cluster);
    const cache = where.cluster.nb.cache;
    // Only what the plan left as it left it can be put back; a row changed since is someone else's.
    for (const change of original.result.changes) {
      const now = cache.get(change.table, change.uuid);
      const changedSince =
        change.new === null
          ? now !== undefined
          : now === undefined || rowDelta(change.new, now) !== undefined;
      if (changedSince) {
        throw new ConflictError(
          `${change.table} ${change.uuid} has changed since plan ${original.id} was applied`,
        );
      }
    }
    const targets: RowTarget[] = original.result.changes.map((c) => ({
      table: c.table,
      uuid: c.uuid,
      row: c.old,
    }));
    const changes = changesToward(where.schema, targets, (t, u) => cache.get(t, u));
    if (changes.length === 0) throw new ConflictError(`plan ${original.id} changed nothing to roll back`);
    return this.prepare(
      "rollback",
      where,
      {
        description: text(body, "description") ?? `rollback of plan ${original.id}`,
        changes,
        source: { plan: original.id },
        serverChecked: false,
      },
      actor,
    );
  }

  restore(raw: unknown, actor: Actor): Plan {
    const body = bodyOf(raw, ["snapshot", "cluster", "tables", "description"], ["snapshot"]);
    const document = this.options.snapshots.document(text(body, "snapshot") as string);
    const where = this.live(text(body, "cluster") ?? document.cluster);
    const snapshotTables = document.databases.nb.tables;
    const named = body.tables as string[] | undefined;
    const unknown = (named ?? []).filter((t) => where.schema.tables[t] === undefined);
    if (unknown.length > 0)
      throw new ValidationError(`invalid body: tables: ${unknown.join(", ")} not in the server's schema`);
    const tables = named ?? Object.keys(where.schema.tables).filter((t) => !restoreSkips.includes(t));
    const cache = where.cluster.nb.cache;
    const targets: RowTarget[] = [];
    for (const table of tables.sort()) {
      const wanted = new Map<string, Row>((snapshotTables[table] ?? []).map((r) => [r._uuid, r]));
      for (const row of cache.rows(table))
        if (!wanted.has(row._uuid)) targets.push({ table, uuid: row._uuid, row: null });
      for (const [uuid, row] of wanted) targets.push({ table, uuid, row });
    }
    const changes = changesToward(where.schema, targets, (t, u) => cache.get(t, u));
    if (changes.length === 0)
      throw new ConflictError(
        `the live rows already equal snapshot ${document.id} in ${tables.length} tables`,
      );
    return this.prepare(
      "restore",
      where,
      {
        description:
          text(body, "description") ?? `restore ${tables.length} tables to snapshot ${document.id}`,
        changes,
        source: { snapshot: document.id },
        serverChecked: false,
      },
      actor,
    );
  }

  get(id: string): Plan {
    const plan = this.options.plans.get(id);
    if (plan === undefined) throw new NotFoundError("not found");
    if (plan.state === "prepared" && plan.expires_at <= this.instant() && !this.applying.has(id)) {
      const expired: Plan = { ...plan, state: "expired", finished_at: plan.expires_at };
      this.options.plans.save(expired);
      return expired;
    }
    return plan;
  }

  cancel(id: string, actor: Actor): Plan {
    const plan = this.get(id);
    if (plan.state !== "prepared" || this.applying.has(id)) {
      throw new ConflictError(
        `plan ${id} is ${this.applying.has(id) ? "being applied" : plan.state}: only a prepared plan can be cancelled`,
      );
    }
    const cancelled: Plan = { ...plan, state: "cancelled", finished_at: this.instant() };
    this.options.plans.save(cancelled);
    this.record("cancel", cancelled, actor, "cancelled", null, cancelled.finished_at);
    return cancelled;
  }

  private async transact(cluster: Cluster, operations: unknown[]): Promise<unknown[]> {
    try {
      return await cluster.nb.transact(operations);
    } catch (error) {
      throw new UnavailableError(`cluster ${cluster.name}: the northbound database cannot be reached`, {
        cause: error,
      });
    }
  }

  async apply(id: string, actor: Actor): Promise<Plan> {
    const plan = this.get(id);
    if (this.applying.has(id)) throw new ConflictError(`plan ${id} is being applied`);
    if (plan.state !== "prepared")
      throw new ConflictError(`plan ${id} is ${plan.state}: only a prepared plan can be applied`);
    const where = this.live(plan.cluster);
    this.applying.add(id);
    const auditId = this.record("apply", plan, actor, "pending", null, null);
    const changes: PlanResult["changes"] = [];
    // ovsdb-server sends a transaction's updates before its reply: what arrives meanwhile is its effect.
    const unsubscribe = where.cluster.nb.cache.subscribe((batch) => {
      for (const c of batch)
        changes.push({ table: c.table, uuid: c.uuid, old: c.old ?? null, new: c.new ?? null });
    });
    let finished: Plan;
    try {
      const tx = transactionOf(
        where.schema,
        plan,
        `netview plan ${plan.id} (${plan.kind}) by ${actor.actor}`,
      );
      const result = await this.transact(where.cluster, tx.operations);
      const outcome = outcomeOf(plan, tx, result);
      finished = {
        ...plan,
        state: outcome.state,
        finished_at: this.instant(),
        result:
          outcome.state === "applied"
            ? { error: null, inserted: outcome.inserted, changes }
            : { error: outcome.error, inserted: {}, changes: [] },
      };
    } catch (error) {
      this.options.audit.finish(auditId, {
        result: "error",
        error: (error as Error).message,
        finished_at: this.instant(),
      });
      throw error;
    } finally {
      unsubscribe();
      this.applying.delete(id);
    }
    this.options.plans.save(finished);
    this.options.audit.finish(auditId, {
      result: finished.state,
      error: finished.result?.error ?? null,
      finished_at: finished.finished_at as string,
    });
    this.options.log?.info(
      { plan: id, kind: plan.kind, actor: actor.actor, state: finished.state },
      "write plan applied",
    );
    if (finished.state === "stale") throw new ConflictError(`plan ${id} is stale: ${finished.result?.error}`);
    if (finished.state === "failed")
      throw new SvcError("unprocessable", `plan ${id} failed: ${finished.result?.error}`);
    return finished;
  }

  auditList(query: Record<string, unknown>) {
    const problems: string[] = [];
    const integer = (name: string, max: number) => {
      const value = query[name];
      if (value === undefined) return undefined;
      const n = typeof value === "string" && /^\d+$/.test(value) ? Number(value) : Number.NaN;
      if (!Number.isSafeInteger(n) || n < 1 || n > max)
        problems.push(`${name}: takes an integer from 1 to ${max}`);
      return n;
    };
    for (const key of Object.keys(query))
      if (!["limit", "before", "plan"].includes(key)) problems.push(`${key}: not a parameter here`);
    const limit = integer("limit", 1000) ?? 100;
    const before = integer("before", Number.MAX_SAFE_INTEGER);
    const plan = typeof query.plan === "string" ? query.plan : undefined;
    if (problems.length > 0) throw new ValidationError(`invalid query: ${problems.join("; ")}`);
    return this.options.audit.list({
      limit,
      ...(before === undefined ? {} : { before }),
      ...(plan === undefined ? {} : { plan }),
    });
  }

  auditEntry(id: string) {
    const entry = /^\d{1,15}$/.test(id) ? this.options.audit.get(Number(id)) : undefined;
    if (entry === undefined) throw new NotFoundError("not found");
    return entry;
  }

  prune(): void {
    this.options.plans.prune(this.now());
    this.options.audit.prune(this.now());
  }
}
