import { type Decimal, formatMoney, sum } from "../../foundation/money/decimal.ts";

/**
 * The money invariants of a statement and of a credit note (decision 468; docs/engine.md#money-invariants),
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
  /** The plan lines that moved (decision 467): their deltas are in the base delta too. */
  plan: { tier_lines: readonly { delta: Decimal }[]; minimums: readonly { delta: Decimal }[] } | null;
  base_delta: Decimal;
  adjustments: readonly { type: string; delta: Decimal }[];
  net_delta: Decimal;
  kickback_delta: Decimal;
  total: Decimal;
}

type Subject = Pick<MoneyBreach, "document" | "cloud" | "project_id">;

/** One rule: the figure as built and what it must be, each with the words that name it in the message. */
type Rule = [invariant: MoneyInvariant, found: string, foundValue: Decimal, expected: string, value: Decimal];

/** Two places, as amounts are shown, unless the figure has more (a broken one may). */
const shown = (value: Decimal) => (value.round(2).eq(value) ? formatMoney(value) : value.toFixed());

/** Throws on the first rule whose two sides differ, to the last digit. */
function hold(subject: Subject, rules: readonly Rule[]): void {
  for (const [invariant, found, foundValue, expected, value] of rules) {
    if (foundValue.eq(value)) continue;
    throw new MoneyInvariantError({
      ...subject,
      invariant,
      found: `${found} ${shown(foundValue)}`,
      expected: `${expected} ${shown(value)}`,
    });
  }
}

const isKickback = (line: { type: string }) => line.type === "kickback";

/** Per document, the invariants of `netRules` and the names of its base, net and kickback figures in a message. */
const figureNames = {
  statement: {
    invariants: ["net_is_base_plus_adjustments", "kickback_total_is_kickbacks", "total_is_net"],
    names: ["base_cost", "net_cost", "kickback_total"],
    lines: "lines",
  },
  "credit note": {
    invariants: [
      "note_net_is_base_plus_adjustments",
      "note_kickback_is_kickback_deltas",
      "note_total_is_net",
    ],
    names: ["base_delta", "net_delta", "kickback_delta"],
    lines: "deltas",
  },
} as const satisfies Record<
  Subject["document"],
  { invariants: readonly MoneyInvariant[]; names: readonly string[]; lines: string }
>;

/**
 * The rules a statement and a note share, each by its own names: the net is the base plus the lines
 * that change it (all but kickbacks), the kickback figure is the kickback lines, the total is the net.
 */
function netRules(
  document: Subject["document"],
  lines: readonly { type: string; value: Decimal }[],
  [base, net, kickback, total]: readonly [Decimal, Decimal, Decimal, Decimal],
): Rule[] {
  const { invariants, names, lines: of } = figureNames[document];
  const sumOf = (kickbacks: boolean) =>
    sum(lines.filter((l) => isKickback(l) === kickbacks).map((l) => l.value));
  return [
    [
      invariants[0],
      names[1],
      net,
      `${names[0]} plus its surcharge and discount ${of}`,
      base.plus(sumOf(false)),
    ],
    [invariants[1], names[2], kickback, `the sum of its kickback ${of}`, sumOf(true)],
    [invariants[2], "total", total, names[1], net],
  ];
}

/**
 * A statement adds up: each adjustment line's shares sum to the line (apportionment,
 * docs/engine.md#adjustments rule 5); the net is the base plus every line that is not a kickback; the
 * kickback total is its kickback lines; the total is the net.
 */
export function checkStatement(s: StatementMoney): void {
  hold({ document: "statement", cloud: s.cloud, project_id: s.project_id }, [
    ...s.adjustments.map((l): Rule => {
      const shares = sum(l.shares.map((x) => x.amount));
      const line = `the shares of the ${l.type} of relation ${l.relation_id} on ${l.scope} sum to`;
      return ["shares_sum_to_line", line, shares, "its amount", l.amount];
    }),
    ...netRules(
      "statement",
      s.adjustments.map((l) => ({ type: l.type, value: l.amount })),
      [s.base_cost, s.net_cost, s.kickback_total, s.total],
    ),
  ]);
}

/**
 * A credit note adds up (docs/engine.md#credit-notes): `base_delta` is the sum of its line deltas, own
 * and related (decision 457), and of its plan lines' deltas (decision 467); `net_delta` is the base delta plus the surcharge and discount deltas;
 * `kickback_delta` is the kickback deltas; `total` is `net_delta`.
 */
export function checkCreditNote(n: NoteMoney): void {
  const moved = [...n.lines, ...(n.plan?.tier_lines ?? []), ...(n.plan?.minimums ?? [])];
  const lines = sum(moved.map((l) => l.delta));
  hold({ document: "credit note", cloud: n.cloud, project_id: n.project_id }, [
    ["note_base_is_line_deltas", "base_delta", n.base_delta, "the sum of its line and plan deltas", lines],
    ...netRules(
      "credit note",
      n.adjustments.map((a) => ({ type: a.type, value: a.delta })),
      [n.base_delta, n.net_delta, n.kickback_delta, n.total],
    ),
  ]);
}
