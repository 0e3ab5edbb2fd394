import { type Decimal, zero } from "../../foundation/money/decimal.ts";
import type { Statement } from "./build-statements.ts";
import { projectKey } from "./registry.ts";

/** One kickback amount owed to a beneficiary by one statement (a line, or a correction's delta of one). */
export interface KickbackShare {
  beneficiary_cloud: string;
  beneficiary: string;
  cloud: string;
  project_id: string;
  amount: Decimal;
}

/** One beneficiary's settlement: its kickback shares summed, and how many statements are behind them. */
export interface PartnerSettlement {
  beneficiary_cloud: string;
  beneficiary: string;
  total: Decimal;
  projects: number;
}

/**
 * The partner settlements of kickback shares (pure): per beneficiary the sum of its shares and the
 * number of statements behind them, in the order beneficiaries first appear. A run stores them, and
 * `simulator compare --registry` states them of the oracle's statements. A correction's shares are its
 * kickback deltas, so its settlement is what each beneficiary is owed more or less.
 */
export function partnerSettlements(shares: readonly KickbackShare[]): PartnerSettlement[] {
  const settlements = new Map<string, { settlement: PartnerSettlement; projects: Set<string> }>();
  for (const share of shares) {
    const key = projectKey(share.beneficiary_cloud, share.beneficiary);
    const held = settlements.get(key) ?? {
      settlement: {
        beneficiary_cloud: share.beneficiary_cloud,
        beneficiary: share.beneficiary,
        total: zero,
        projects: 0,
      },
      projects: new Set<string>(),
    };
    held.settlement.total = held.settlement.total.plus(share.amount);
    held.projects.add(projectKey(share.cloud, share.project_id));
    held.settlement.projects = held.projects.size;
    settlements.set(key, held);
  }
  return [...settlements.values()].map((s) => s.settlement);
}

/** The kickback lines of statements as settlement shares. */
export function kickbackShares(statements: readonly Statement[]): KickbackShare[] {
  return statements.flatMap((s) =>
    s.adjustments
      .filter((line) => line.type === "kickback")
      .map((line) => ({
        beneficiary_cloud: line.relation_target_cloud,
        beneficiary: line.relation_target,
        cloud: s.cloud,
        project_id: s.project_id,
        amount: line.amount,
      })),
  );
}
