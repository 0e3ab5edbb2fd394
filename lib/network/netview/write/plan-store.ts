/** Write plans on the state database, kept a week after they end (decision 356). */
import type { Database } from "bun:sqlite";
import type { Plan } from "./plan.ts";

const finishedPlanRetentionMs = 7 * 24 * 3_600_000;

export class PlanStore {
  constructor(private readonly db: Database) {
    db.run(`create table if not exists write_plans (
      id text primary key,
      created_at text not null,
      finished_at text,
      json text not null)`);
  }

  save(plan: Plan): void {
    this.db.run(
      "insert into write_plans (id, created_at, finished_at, json) values (?, ?, ?, ?) on conflict (id) do update set finished_at = excluded.finished_at, json = excluded.json",
      [plan.id, plan.created_at, plan.finished_at, JSON.stringify(plan)],
    );
  }

  get(id: string): Plan | undefined {
    const row = this.db.query("select json from write_plans where id = ?").get(id) as { json: string } | null;
    return row === null ? undefined : (JSON.parse(row.json) as Plan);
  }

  /** Drops plans that ended before the retention, and prepared ones long expired. */
  prune(nowMs: number): number {
    const cutoff = new Date(nowMs - finishedPlanRetentionMs).toISOString();
    return this.db.run(
      "delete from write_plans where (finished_at is not null and finished_at < ?) or (finished_at is null and created_at < ?)",
      [cutoff, cutoff],
    ).changes;
  }
}
