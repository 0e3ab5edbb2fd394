import type { Sql } from "postgres";
import type { Tenant } from "../../lib/billing/simulator/month.ts";

/**
 * The registry as the simulator registers it (docs/simulator.md#registering-the-projects: a project per tenant, the
 * cluster managers alpha and beta under the garden cloud, each attributing its infrastructure tenant),
 * with adjustments in play: a reseller's discount and volume surcharge on one classic tenant, a
 * partner's instance discount and kickback on another, the partner's kickback and a project discount
 * on alpha.
 */
export async function registerTenants(
  sql: Sql,
  month: { cloud: string; garden: string; tenants: readonly Tenant[]; from: string },
): Promise<void> {
  const { cloud, garden, tenants, from } = month;
  await sql`delete from project_relations`;
  await sql`delete from projects`;
  const project = async (platform: string, projectCloud: string, external: string) =>
    (
      await sql<{ id: string }[]>`insert into projects (platform, cloud, external_id)
        values (${platform}, ${projectCloud}, ${external}) returning id::text`
    )[0]?.id as string;
  const relate = async (source: string, target: string, type: string, adjustments?: object[]) => {
    const metadata = JSON.stringify(adjustments === undefined ? {} : { pricing_adjustments: adjustments });
    await sql`insert into project_relations (source_id, target_id, relation_type, metadata, valid_from)
      values (${source}, ${target}, ${type}, ${metadata}, ${from})`;
  };
  const ids = new Map<Tenant, string>();
  for (const t of tenants) ids.set(t, await project("platform_a", cloud, t.project_id));
  const managers = new Map<string, string>();
  for (const name of ["alpha", "beta"]) managers.set(name, await project("garden", garden, name));
  for (const t of tenants.filter((x) => x.cluster_manager !== null)) {
    await relate(
      managers.get(t.cluster_manager as string) as string,
      ids.get(t) as string,
      "infrastructure_tenant",
    );
  }
  const reseller = await project("meta", "meta", "reseller");
  const acme = await project("partner", "partner", "acme");
  const [first, second] = tenants.filter((t) => t.kind === "classic");
  await relate(ids.get(first as Tenant) as string, reseller, "managed_by", [
    { type: "discount", rate: "0.1", scope: "all" },
    { type: "surcharge", rate: "0.05", scope: "platform_a.volume" },
  ]);
  await relate(ids.get(second as Tenant) as string, acme, "managed_by", [
    { type: "discount", rate: "0.15", scope: "platform_a.instance" },
    { type: "kickback", rate: "0.08", scope: "all" },
  ]);
  await relate(managers.get("alpha") as string, acme, "managed_by", [
    { type: "project_discount", rate: "0.02", scope: "all" },
    { type: "kickback", rate: "0.05", scope: "platform_a" },
  ]);
}
