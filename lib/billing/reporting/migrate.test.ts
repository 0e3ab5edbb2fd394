import { afterAll, beforeAll, expect, test } from "bun:test";
import { type FreshDatabase, freshDatabase } from "../../../harness/reporting/fresh-database.ts";
import { migrationCount } from "../../foundation/postgres/migration-count.ts";
import { openDatabase } from "./database.ts";
import { EventPartitions } from "./event-partitions.ts";
import { migrateReporting, reportingMigrationsFolder } from "./migrate.ts";

let fresh: FreshDatabase;
beforeAll(async () => {
  fresh = await freshDatabase();
});
afterAll(async () => {
  await fresh.drop();
});

test("two migrate runs at once apply each migration once; a third applies nothing", async () => {
  const now = new Date("2026-11-21T10:00:00Z");
  const [a, b] = await Promise.all([migrateReporting(fresh.url, now), migrateReporting(fresh.url, now)]);
  expect((a?.applied ?? 0) + (b?.applied ?? 0)).toBe(await migrationCount(reportingMigrationsFolder));
  expect(a?.partitions).toEqual(["2026-10", "2026-11", "2026-12", "2027-01", "2027-02"]);
  const again = await migrateReporting(fresh.url, now);
  expect(again.applied).toBe(0);

  const { sql, close } = openDatabase(fresh.url, { max: 1 });
  try {
    const tables = await sql<{ name: string }[]>`
      select c.relname as name from pg_class c join pg_namespace n on n.oid = c.relnamespace
      where n.nspname = 'public' and c.relkind in ('r', 'p') and not c.relispartition order by 1`;
    expect(tables.map((t) => t.name)).toEqual([
      "api_tokens",
      "audit_log",
      "current_resources",
      "events",
      "ingest_credentials",
      "project_relations",
      "projects",
      "rejected_events",
      "resource_types",
      "size_names",
      "sync_runs",
    ]);
    const types = await sql<{ resource_type: string; required: string[] }[]>`
      select resource_type, array(select jsonb_array_elements_text(size_schema->'required')) as required
      from resource_types where platform = 'platform_a' order by resource_type`;
    expect(types.map((t) => [t.resource_type, t.required])).toEqual([
      ["floating_ip", ["ip_version"]],
      ["image", ["size_gb"]],
      ["instance", ["vcpus", "ram_gb", "disk_gb", "flavor"]],
      ["loadbalancer", ["listeners", "pools"]],
      ["volume", ["size_gb", "type"]],
      ["volume_backup", ["size_gb"]],
      ["volume_snapshot", ["size_gb"]],
    ]);
  } finally {
    await close();
  }
});

test("a partition for any month is created on demand, concurrently, and stores the event", async () => {
  const { sql, close } = openDatabase(fresh.url, { max: 4 });
  try {
    const instants = ["1999-05-31T23:59:59.999Z", "2099-12-01T00:00:00.000Z"];
    await Promise.all([
      new EventPartitions(sql).ensureFor(instants),
      new EventPartitions(sql).ensureFor(instants),
    ]);
    for (const ts of instants) {
      await sql`insert into events (event_id, timestamp, event_type, platform, cloud, resource_type, resource_id,
        project_id, source, payload) values ('e', ${ts}, 'a.b', 'p', 'c', 'r', 'i', 'j', 'collector', '{}'::jsonb)`;
    }
    const parts = await sql<{ name: string }[]>`
      select tableoid::regclass::text as name from events order by timestamp`;
    expect(parts.map((p) => p.name)).toEqual(["events_p1999_05", "events_p2099_12"]);
  } finally {
    await close();
  }
});
