import type { TransactionSql } from "postgres";
import type { JsonObject } from "../../../foundation/json/json-value.ts";
import type { CanonicalEvent } from "../../events/event.ts";
import { type SizeNameRow, type SizeNameTable, sizeNameTable } from "./size-names.ts";

/**
 * What ingest checks a batch's sizes against (1-reporting-api.md, Size names and Size schemas): the size
 * names of each (cloud, resource_type) and the size schema of each (platform, resource_type) the batch
 * carries a size for. One idea, read in one statement per batch, once per pair (Size names, rule 2).
 */
interface SizeRules {
  /** The names of an event's (cloud, resource_type); undefined when the cloud has none for the type. */
  namesFor(event: Pick<CanonicalEvent, "cloud" | "resource_type">): SizeNameTable | undefined;
  /** The schema of an event's (platform, resource_type); undefined when none is registered. */
  schemaFor(event: Pick<CanonicalEvent, "platform" | "resource_type">): JsonObject | undefined;
}

const pairKey = (a: string, b: string) => JSON.stringify([a, b]);

type RuleRow =
  | ({ kind: "name"; scope: string; resource_type: string } & SizeNameRow)
  | { kind: "schema"; scope: string; resource_type: string; size_schema: JsonObject };

export async function readSizeRules(
  tx: TransactionSql,
  events: readonly Pick<CanonicalEvent, "platform" | "cloud" | "resource_type" | "payload">[],
): Promise<SizeRules> {
  const namePairs = new Map<string, { cloud: string; resource_type: string }>();
  const schemaPairs = new Map<string, { platform: string; resource_type: string }>();
  for (const { platform, cloud, resource_type, payload } of events) {
    if (!payload.size) continue;
    namePairs.set(pairKey(cloud, resource_type), { cloud, resource_type });
    schemaPairs.set(pairKey(platform, resource_type), { platform, resource_type });
  }
  const names = new Map<string, SizeNameRow[]>();
  const schemas = new Map<string, JsonObject>();
  if (namePairs.size > 0) {
    const rows = await tx<RuleRow[]>`
      select 'name' as kind, s.cloud as scope, s.resource_type, s.member, s.value, s.name, null as size_schema
      from size_names s
      join json_to_recordset(${JSON.stringify([...namePairs.values()])}::json) as p(cloud text, resource_type text)
        using (cloud, resource_type)
      union all
      select 'schema', t.platform, t.resource_type, null, null, null, t.size_schema
      from resource_types t
      join json_to_recordset(${JSON.stringify([...schemaPairs.values()])}::json) as p(platform text, resource_type text)
        using (platform, resource_type)`;
    for (const row of rows) {
      const key = pairKey(row.scope, row.resource_type);
      if (row.kind === "schema") schemas.set(key, row.size_schema);
      else names.set(key, [...(names.get(key) ?? []), row]);
    }
  }
  const tables = new Map([...names].map(([key, rows]) => [key, sizeNameTable(rows)]));
  return {
    namesFor: (e) => tables.get(pairKey(e.cloud, e.resource_type)),
    schemaFor: (e) => schemas.get(pairKey(e.platform, e.resource_type)),
  };
}
