import type { Sql } from "postgres";
import type { ListedSizeName } from "./observation.ts";

/** A key PostgreSQL's B-tree index takes with room to spare (decision 116's bound). */
const maxKeyBytes = 2600;

const keyBytes = (cloud: string, row: ListedSizeName) =>
  Buffer.byteLength(cloud + row.resource_type + row.member + row.value, "utf8");

/**
 * Replaces the cloud's `size_names` rows with the listed ones in one transaction (docs/reporting-api.md#size-names,
 * rule 1), so ingest never reads a half-replaced table. Rows with an empty value or name, and keys
 * beyond the index bound, are not stored; returns the rows stored.
 */
export async function storeSizeNames(
  sql: Sql,
  cloud: string,
  listed: readonly ListedSizeName[],
): Promise<number> {
  const rows = listed.filter((r) => r.value !== "" && r.name !== "" && keyBytes(cloud, r) <= maxKeyBytes);
  await sql.begin(async (tx) => {
    await tx`delete from size_names where cloud = ${cloud}`;
    if (rows.length === 0) return;
    await tx`
      insert into size_names (cloud, resource_type, member, value, name)
      select ${cloud}, resource_type, member, value, name
      from json_to_recordset(${JSON.stringify(rows)}::json) as r(resource_type text, member text, value text, name text)
      on conflict (cloud, resource_type, member, value) do update set name = excluded.name`;
  });
  return rows.length;
}
