import type { Month } from "../../lib/billing/simulator/month.ts";
import { buildOracle, type Oracle } from "../../lib/billing/simulator/oracle.ts";

/**
 * The month as a run finalized before its held share arrived reads it (decision 548): the oracle of
 * the month with each held transition left out, so a resource stays as its last delivered transition
 * left it until the next one (a held create: it begins at its first delivered event; a held delete: it
 * lives to the month's end). `money-edges` draws from it which tenants' bills the correction moves.
 * A prediction, never a check: the checks read the engine's own statements and notes, and `compare`
 * prices the complete month. `held` holds the held events' ids (a notification's message id).
 */
export function finalizedOracle(month: Month, held: ReadonlySet<string>): Oracle {
  const resources = month.resources.map((r) =>
    r.steps.some((s) => held.has(s.message_id))
      ? { ...r, steps: r.steps.filter((s) => !held.has(s.message_id)) }
      : r,
  );
  return buildOracle({ ...month, resources }, [], new Map());
}
