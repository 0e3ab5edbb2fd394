import { eq } from "drizzle-orm";
import type { Sql } from "postgres";
import { UsageError } from "../../../foundation/cli/usage-error.ts";
import { type PricingModel, readPricingModel } from "../../pricing/pricing-model.ts";
import { engineDb } from "./engine-db.ts";
import { pricingModels } from "./engine-schema.ts";

/**
 * Stores a pricing model under its name, once: a run names the model and a correction rates with the
 * very document its finalized run used (decision 405). A different document under a stored name is
 * refused, since two price lists under one name would make the name on a run meaningless.
 */
export async function storePricingModel(sql: Sql, model: PricingModel): Promise<void> {
  const db = engineDb(sql);
  await db
    .insert(pricingModels)
    .values({ name: model.name, digest: model.digest, currency: model.currency, document: model.text })
    .onConflictDoNothing({ target: pricingModels.name });
  const [stored] = await db
    .select({ digest: pricingModels.digest })
    .from(pricingModels)
    .where(eq(pricingModels.name, model.name));
  if (stored?.digest !== model.digest) {
    throw new UsageError(
      `pricing model ${model.name} is already stored with other contents: give the changed model a new name`,
    );
  }
}

export async function loadPricingModel(sql: Sql, name: string): Promise<PricingModel> {
  const [row] = await engineDb(sql)
    .select({ document: pricingModels.document })
    .from(pricingModels)
    .where(eq(pricingModels.name, name));
  if (row === undefined) throw new Error(`pricing model ${name} is not stored`);
  return readPricingModel(row.document);
}
