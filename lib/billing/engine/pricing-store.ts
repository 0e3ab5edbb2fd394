import type { Sql } from "postgres";
import { UsageError } from "../../foundation/cli/usage-error.ts";
import { type PricingModel, readPricingModel } from "../pricing/pricing-model.ts";

/**
 * Stores a pricing model under its name, once: a run names the model and a correction rates with the
 * very document its finalized run used (decision 405). A different document under a stored name is
 * refused, since two price lists under one name would make the name on a run meaningless.
 */
export async function storePricingModel(sql: Sql, model: PricingModel): Promise<void> {
  await sql`insert into pricing_models (name, digest, currency, document)
    values (${model.name}, ${model.digest}, ${model.currency}, ${model.text}) on conflict (name) do nothing`;
  const [stored] = await sql<
    { digest: string }[]
  >`select digest from pricing_models where name = ${model.name}`;
  if (stored?.digest !== model.digest) {
    throw new UsageError(
      `pricing model ${model.name} is already stored with other contents: give the changed model a new name`,
    );
  }
}

export async function loadPricingModel(sql: Sql, name: string): Promise<PricingModel> {
  const [row] = await sql<{ document: string }[]>`select document from pricing_models where name = ${name}`;
  if (row === undefined) throw new Error(`pricing model ${name} is not stored`);
  return readPricingModel(row.document);
}
