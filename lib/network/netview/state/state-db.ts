/**
 * Netview's own state (change events, snapshots, alert rules and silences, write plans and the audit)
 * in one SQLite file under `--state-dir`, or in memory without one (decision 351). Each store creates
 * its own tables, so a store is testable alone on an in-memory database.
 */
import { Database } from "bun:sqlite";
import { mkdirSync } from "node:fs";
import { join } from "node:path";

const stateFileName = "netview.sqlite";

export function openStateDb(stateDir: string | undefined): Database {
  if (stateDir === undefined) return new Database(":memory:", { strict: true });
  mkdirSync(stateDir, { recursive: true, mode: 0o700 });
  const db = new Database(join(stateDir, stateFileName), { create: true, strict: true });
  // WAL with synchronous=NORMAL survives a crash of the process (field notes); a power loss may lose
  // the last commits, which for events and snapshots is an acceptable price for the write rate.
  db.run("pragma journal_mode = wal");
  db.run("pragma synchronous = normal");
  db.run("pragma busy_timeout = 5000");
  return db;
}
