/**
 * Alert rule overrides and silences on the state database, so both outlive a restart (decision 360).
 * Silences ended more than a week ago are pruned.
 */
import type { Database } from "bun:sqlite";
import type { RuleOverride } from "./alert-rules.ts";

export interface SilenceMatchers {
  rule?: string;
  cluster?: string;
  subject?: string;
}

export interface Silence {
  id: string;
  matchers: SilenceMatchers;
  comment: string;
  created_by: string;
  created_at: string;
  starts_at: string;
  ends_at: string;
}

const endedSilenceRetentionMs = 7 * 24 * 3_600_000;

export class AlertStore {
  constructor(private readonly db: Database) {
    db.run("create table if not exists alert_rules (name text primary key, json text not null)");
    db.run(
      "create table if not exists alert_silences (id text primary key, ends_at text not null, json text not null)",
    );
  }

  overrides(): Map<string, RuleOverride> {
    const rows = this.db.query("select name, json from alert_rules").all() as {
      name: string;
      json: string;
    }[];
    return new Map(rows.map((r) => [r.name, JSON.parse(r.json) as RuleOverride]));
  }

  setOverride(name: string, override: RuleOverride): void {
    if (Object.keys(override).length === 0) this.db.run("delete from alert_rules where name = ?", [name]);
    else
      this.db.run(
        "insert into alert_rules (name, json) values (?, ?) on conflict (name) do update set json = excluded.json",
        [name, JSON.stringify(override)],
      );
  }

  silences(): Silence[] {
    const rows = this.db.query("select json from alert_silences order by ends_at desc").all() as {
      json: string;
    }[];
    return rows.map((r) => JSON.parse(r.json) as Silence);
  }

  addSilence(silence: Silence): void {
    this.db.run("insert into alert_silences (id, ends_at, json) values (?, ?, ?)", [
      silence.id,
      silence.ends_at,
      JSON.stringify(silence),
    ]);
  }

  deleteSilence(id: string): boolean {
    return this.db.run("delete from alert_silences where id = ?", [id]).changes > 0;
  }

  prune(nowMs: number): number {
    return this.db.run("delete from alert_silences where ends_at < ?", [
      new Date(nowMs - endedSilenceRetentionMs).toISOString(),
    ]).changes;
  }
}
