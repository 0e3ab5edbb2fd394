import { type Decimal, formatMoney, sum } from "../../foundation/money/decimal.ts";

/**
 * The money invariants of a statement and of a credit note (decision 467; docs/engine.md#money-invariants),
 * checked where each is built (`buildStatements`, `creditNotes`), so that a broken figure stops the run
 * or the correction before anything is written, rather than reaching a bill. Every one holds by
 * construction today; the check is what keeps it so when a rule is changed on one side only.
 * The figures are typed by shape, not by `Statement` or `CreditNote`: both builders import this file,
 * and a credit note is built above statements.
 */
export type MoneyInvariant =
  | "shares_sum_to_line"
  | "net_is_base_plus_adjustments"
  | "kickback_total_is_kickbacks"
  | "total_is_net"
  | "note_base_is_line_deltas"
  | "note_net_is_base_plus_adjustments"
  | "note_kickback_is_kickback_deltas"
  | "note_total_is_net";

/** What the check found: the figure as built, and what the rule says it must be. */
export interface MoneyBreach {
  invariant: MoneyInvariant;
  document: "statement" | "credit note";
  cloud: string;
  project_id: string;
  found: string;
  expected: string;
}

/** A statement or a credit note whose figures do not add up: the run or the correction stops, storing nothing. */
export class MoneyInvariantError extends Error {
  override readonly name = "MoneyInvariantError";
  readonly invariant: MoneyInvariant;

  constructor(readonly breach: MoneyBreach) {
    super(
      `money invariant ${breach.invariant} broken on the ${breach.document} of ${breach.cloud}/${breach.project_id}: ${breach.found}, expected ${breach.expected}`,
      { cause: breach },
    );
    this.invariant = breach.invariant;
  }
}

/** A statement's money, as `buildStatements` makes it. */
export interface StatementMoney {
  cloud: string;
  project_id: string;
  base_cost: Decimal;
  net_cost: Decimal;
  kickback_total: Decimal;
  total: Decimal;
  adjustments: readonly {
    type: string;
    relation_id: string;
    scope: string;
    amount: Decimal;
    shares: readonly { amount: Decimal }[];
  }[];
}

/** A credit note's money, as `creditNotes` makes it. */
export interface NoteMoney {
  cloud: string;
  project_id: string;
  lines: readonly { delta: Decimal }[];
  base_delta: Decimal;
  adjustments: readonly { type: string; delta: Decimal }[];
  net_delta: Decimal;
  kickback_delta: Decimal;
  total: Decimal;
}

type Subject = Pick<MoneyBreach, "document" | "cloud" | "project_id">;

/** Throws when `found` is not `expected` to the last digit; `what` names both sides in the message. */
function hold(
  subject: Subject,
  invariant: MoneyInvariant,
  found: { what: string; value: Decimal },
  expected: { what: string; value: Decimal },
): void {
  if (found.value.eq(expected.value)) return;
  throw new MoneyInvariantError({
    ...subject,
    invariant,
    found: `${found.what} ${shown(found.value)}`,
    expected: `${expected.what} ${shown(expected.value)}`,
  });
}

/** Two places, as amounts are shown, unless the figure has more (a broken one may). */
const shown = (value: Decimal) => (value.round(2).eq(value) ? formatMoney(value) : value.toFixed());

const isKickback = (line: { type: string }) => line.type === "kickback";

/**
 * A statement adds up: each adjustment line's shares sum to the line (apportionment,
 * docs/engine.md#adjustments rule 5); the net is the base plus every line that is not a kickback; the kickback total is its kickback lines; the total is the net.
 */
export function checkStatement(s: StatementMoney): void {
  const subject: Subject = { document: "statement", cloud: s.cloud, project_id: s.project_id };
  for (const line of s.adjustments) {
    hold(
      subject,
      "shares_sum_to_line",
      {
        what: `the shares of the ${line.type} of relation ${line.relation_id} on ${line.scope} sum to`,
        value: sum(line.shares.map((x) => x.amount)),
      },
      { what: "its amount", value: line.amount },
    );
  }
  const adjustments = s.adjustments.filter((l) => !isKickback(l)).map((l) => l.amount);
  hold(
    subject,
    "net_is_base_plus_adjustments",
    { what: "net_cost", value: s.net_cost },
    {
      what: "base_cost plus its surcharges and discounts",
      value: s.base_cost.plus(sum(adjustments)),
    },
  );
  hold(
    subject,
    "kickback_total_is_kickbacks",
    { what: "kickback_total", value: s.kickback_total },
    {
      what: "the sum of its kickback lines",
      value: sum(s.adjustments.filter(isKickback).map((l) => l.amount)),
    },
  );
  hold(subject, "total_is_net", { what: "total", value: s.total }, { what: "net_cost", value: s.net_cost });
}

/**
 * A credit note adds up (docs/engine.md#credit-notes): `base_delta` is the sum of its line deltas, own
 * and related (decision 457); `net_delta` is the base delta plus the surcharge and discount deltas;
 * `kickback_delta` is the kickback deltas; `total` is `net_delta`.
 */
export function checkCreditNote(n: NoteMoney): void {
  const subject: Subject = { document: "credit note", cloud: n.cloud, project_id: n.project_id };
  hold(
    subject,
    "note_base_is_line_deltas",
    { what: "base_delta", value: n.base_delta },
    {
      what: "the sum of its line deltas",
      value: sum(n.lines.map((l) => l.delta)),
    },
  );
  hold(
    subject,
    "note_net_is_base_plus_adjustments",
    { what: "net_delta", value: n.net_delta },
    {
      what: "base_delta plus its surcharge and discount deltas",
      value: n.base_delta.plus(sum(n.adjustments.filter((a) => !isKickback(a)).map((a) => a.delta))),
    },
  );
  hold(
    subject,
    "note_kickback_is_kickback_deltas",
    { what: "kickback_delta", value: n.kickback_delta },
    {
      what: "the sum of its kickback deltas",
      value: sum(n.adjustments.filter(isKickback).map((a) => a.delta)),
    },
  );
  hold(
    subject,
    "note_total_is_net",
    { what: "total", value: n.total },
    { what: "net_delta", value: n.net_delta },
  );
}
