/**
 * The audit of writes (decision 356): who (the caller's declared actor, the token's fingerprint,
 * the peer address, the request id), when, what (the action, the plan, its changes) and the result.
 * An apply is written before the transaction goes out (`pending`) and completed after, so even a
 * crash in between leaves a trace. Kept a year.
 */
import type { Database } from "bun:sqlite";
import { WhereClause } from "../state/where-clause.ts";
import type { PlannedChange } from "./plan.ts";

const auditRetentionMs = 365 * 24 * 3_600_000;

export interface Actor {
  /** `X-Netview-Actor`, as the caller declared it (the token is shared; this says who held it). */
  actor: string;
  token: string;
  remote_addr: string | null;
  request_id: string | null;
}

export type AuditAction = "plan" | "apply" | "cancel";

export interface AuditEntry extends Actor {
  id: number;
  at: string;
  action: AuditAction;
  kind: string;
  plan_id: string;
  cluster: string;
  result: string;
  error: string | null;
  summary: { inserted: number; updated: number; deleted: number };
  changes: PlannedChange[];
  finished_at: string | null;
}

type AuditSummary = Omit<AuditEntry, "changes">;

export class AuditStore {
  constructor(private readonly db: Database) {
    db.run(`create table if not exists write_audit (
      id integer primary key autoincrement,
      at text not null,
      plan_id text not null,
      json text not null)`);
    db.run("create index if not exists write_audit_plan on write_audit (plan_id)");
  }

  add(entry: Omit<AuditEntry, "id">): number {
    const id = Number(
      this.db.run("insert into write_audit (at, plan_id, json) values (?, ?, '{}')", [
        entry.at,
        entry.plan_id,
      ]).lastInsertRowid,
    );
    this.db.run("update write_audit set json = ? where id = ?", [JSON.stringify({ id, ...entry }), id]);
    return id;
  }

  finish(id: number, outcome: { result: string; error: string | null; finished_at: string }): void {
    const entry = this.get(id);
    if (entry === undefined) return;
    this.db.run("update write_audit set json = ? where id = ?", [
      JSON.stringify({ ...entry, ...outcome }),
      id,
    ]);
  }

  get(id: number): AuditEntry | undefined {
    const row = this.db.query("select json from write_audit where id = ?").get(id) as { json: string } | null;
    return row === null ? undefined : (JSON.parse(row.json) as AuditEntry);
  }

  /** Newest first; `before` pages on (an id), `plan` narrows to one plan. */
  list(filter: { limit: number; before?: number; plan?: string }): AuditSummary[] {
    const where = new WhereClause().when("id < ?", filter.before).when("plan_id = ?", filter.plan);
    const rows = this.db
      .query(`select json from write_audit ${where} order by id desc limit ?`)
      .all(...where.args, filter.limit) as { json: string }[];
    return rows.map(({ json }) => {
      const { changes: _changes, ...summary } = JSON.parse(json) as AuditEntry;
      return summary;
    });
  }

  prune(nowMs: number): number {
    return this.db.run("delete from write_audit where at < ?", [
      new Date(nowMs - auditRetentionMs).toISOString(),
    ]).changes;
  }
}
