import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import { type Decimal, decimal, sum } from "../../foundation/money/decimal.ts";
import {
  checkCreditNote,
  checkStatement,
  type MoneyInvariant,
  MoneyInvariantError,
  type NoteMoney,
  type StatementMoney,
} from "./money-invariants.ts";

const cents = (n: number) => decimal((n / 100).toFixed(2));
const typeArb = fc.constantFrom("surcharge", "discount", "project_discount", "kickback");
const centsArb = fc.integer({ min: -100_000, max: 100_000 });
/** A change of at least a cent: every figure is whole cents, so a smaller one would not be a tamper. */
const tamperArb = fc.integer({ min: -500, max: 500 }).filter((n) => n !== 0);

const isKickback = (l: { type: string }) => l.type === "kickback";

/** A statement that adds up: each line is its shares, the net the base and the lines that are not kickbacks. */
const statementArb = fc
  .record({
    base: centsArb,
    lines: fc.array(
      fc.record({ type: typeArb, shares: fc.array(centsArb, { minLength: 1, maxLength: 4 }) }),
      {
        maxLength: 5,
      },
    ),
  })
  .map(({ base, lines }): StatementMoney => {
    const adjustments = lines.map((l, i) => {
      const shares = l.shares.map((n) => ({ amount: cents(n) }));
      return {
        type: l.type,
        relation_id: `r${i}`,
        scope: "all",
        amount: sum(shares.map((x) => x.amount)),
        shares,
      };
    });
    const net = cents(base).plus(sum(adjustments.filter((l) => !isKickback(l)).map((l) => l.amount)));
    return {
      cloud: "c1",
      project_id: "p1",
      base_cost: cents(base),
      net_cost: net,
      kickback_total: sum(adjustments.filter(isKickback).map((l) => l.amount)),
      total: net,
      adjustments,
    };
  });

const deltasArb = fc.array(centsArb, { maxLength: 3 });
const deltasOf = (ns: readonly number[]) => ns.map((n) => ({ delta: cents(n) }));

/** A credit note that adds up, with or without plan lines that moved. */
const noteArb = fc
  .record({
    lines: fc.array(centsArb, { maxLength: 6 }),
    plan: fc.option(fc.record({ tiers: deltasArb, minimums: deltasArb })),
    adjustments: fc.array(fc.record({ type: typeArb, delta: centsArb }), { maxLength: 4 }),
  })
  .map(({ lines, plan, adjustments }): NoteMoney => {
    const deltas = adjustments.map((a) => ({ type: a.type, delta: cents(a.delta) }));
    const base = sum([...lines, ...(plan?.tiers ?? []), ...(plan?.minimums ?? [])].map(cents));
    const net = base.plus(sum(deltas.filter((a) => !isKickback(a)).map((a) => a.delta)));
    return {
      cloud: "c1",
      project_id: "p1",
      lines: deltasOf(lines),
      plan: plan === null ? null : { tier_lines: deltasOf(plan.tiers), minimums: deltasOf(plan.minimums) },
      base_delta: base,
      adjustments: deltas,
      net_delta: net,
      kickback_delta: sum(deltas.filter(isKickback).map((a) => a.delta)),
      total: net,
    };
  });

/** The invariant a check refused with, or null when it passed. */
function refusal(check: () => void): MoneyInvariant | null {
  try {
    check();
    return null;
  } catch (error) {
    if (error instanceof MoneyInvariantError) return error.invariant;
    throw error;
  }
}

const plus = (value: Decimal, n: number) => value.plus(cents(n));

/** The rule a figure moved alone breaks: the first that reads it, in the order the checks go. */
const statementRule = {
  base_cost: "net_is_base_plus_adjustments",
  net_cost: "net_is_base_plus_adjustments",
  kickback_total: "kickback_total_is_kickbacks",
  total: "total_is_net",
} as const;
const noteRule = {
  base_delta: "note_base_is_line_deltas",
  net_delta: "note_net_is_base_plus_adjustments",
  kickback_delta: "note_kickback_is_kickback_deltas",
  total: "note_total_is_net",
} as const;

describe("figures that add up pass", () => {
  test("any statement made by the rules", () => {
    fc.assert(fc.property(statementArb, (s) => expect(refusal(() => checkStatement(s))).toBeNull()));
  });

  test("any credit note made by the rules", () => {
    fc.assert(fc.property(noteArb, (n) => expect(refusal(() => checkCreditNote(n))).toBeNull()));
  });
});

describe("a statement broken on purpose is refused, by the rule it breaks", () => {
  test("any one figure moved by a cent or more", () => {
    const figures = ["share", "amount", "base_cost", "net_cost", "kickback_total", "total"] as const;
    fc.assert(
      fc.property(statementArb, fc.constantFrom(...figures), tamperArb, fc.nat(), (s, figure, by, pick) => {
        const line = s.adjustments[pick % Math.max(1, s.adjustments.length)];
        if ((figure === "share" || figure === "amount") && line === undefined) return;
        const tampered: StatementMoney = { ...s };
        let expected: MoneyInvariant;
        if (figure === "share" || figure === "amount") {
          const l = line as StatementMoney["adjustments"][number];
          const moved =
            figure === "share"
              ? { ...l, shares: l.shares.map((x, i) => (i === 0 ? { amount: plus(x.amount, by) } : x)) }
              : { ...l, amount: plus(l.amount, by) };
          tampered.adjustments = s.adjustments.map((x) => (x === l ? moved : x));
          expected = "shares_sum_to_line";
        } else {
          tampered[figure] = plus(s[figure], by);
          expected = statementRule[figure];
        }
        expect(refusal(() => checkStatement(tampered))).toBe(expected);
      }),
    );
  });

  test("the error names the rule, the statement and both figures, and carries them as its cause", () => {
    const statement: StatementMoney = {
      cloud: "c1",
      project_id: "p1",
      base_cost: decimal("100.00"),
      net_cost: decimal("90.00"),
      kickback_total: decimal("0.00"),
      total: decimal("90.00"),
      adjustments: [
        {
          type: "discount",
          relation_id: "r1",
          scope: "all",
          amount: decimal("-10.00"),
          shares: [{ amount: decimal("-4.00") }, { amount: decimal("-5.99") }],
        },
      ],
    };
    let thrown: unknown;
    try {
      checkStatement(statement);
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(MoneyInvariantError);
    const error = thrown as MoneyInvariantError;
    expect([error.name, error.message, error.cause]).toEqual([
      "MoneyInvariantError",
      "money invariant shares_sum_to_line broken on the statement of c1/p1: the shares of the discount of relation r1 on all sum to -9.99, expected its amount -10.00",
      {
        invariant: "shares_sum_to_line",
        document: "statement",
        cloud: "c1",
        project_id: "p1",
        found: "the shares of the discount of relation r1 on all sum to -9.99",
        expected: "its amount -10.00",
      },
    ]);
  });
});

describe("a credit note broken on purpose is refused, by the rule it breaks", () => {
  test("any one figure moved by a cent or more", () => {
    type Moved = "line" | "tier" | "adjustment" | keyof typeof noteRule;
    const figures = ["line", "tier", "adjustment", ...Object.keys(noteRule)] as Moved[];
    fc.assert(
      fc.property(noteArb, fc.constantFrom(...figures), tamperArb, fc.nat(), (n, figure, by, pick) => {
        const tampered: NoteMoney = { ...n };
        let expected: MoneyInvariant;
        if (figure === "line") {
          if (n.lines.length === 0) return;
          const at = pick % n.lines.length;
          tampered.lines = n.lines.map((l, i) => (i === at ? { delta: plus(l.delta, by) } : l));
          expected = "note_base_is_line_deltas";
        } else if (figure === "tier") {
          const tiers = n.plan?.tier_lines ?? [];
          if (n.plan === null || tiers.length === 0) return;
          const at = pick % tiers.length;
          const moved = tiers.map((l, i) => (i === at ? { delta: plus(l.delta, by) } : l));
          tampered.plan = { ...n.plan, tier_lines: moved };
          expected = "note_base_is_line_deltas";
        } else if (figure === "adjustment") {
          const a = n.adjustments[pick % Math.max(1, n.adjustments.length)];
          if (a === undefined) return;
          tampered.adjustments = n.adjustments.map((x) => (x === a ? { ...a, delta: plus(a.delta, by) } : x));
          expected = isKickback(a) ? "note_kickback_is_kickback_deltas" : "note_net_is_base_plus_adjustments";
        } else {
          tampered[figure] = plus(n[figure], by);
          expected = noteRule[figure];
        }
        expect(refusal(() => checkCreditNote(tampered))).toBe(expected);
      }),
    );
  });

  test("a figure broken below the cent is shown whole", () => {
    const note: NoteMoney = {
      cloud: "c1",
      project_id: "p1",
      lines: [{ delta: decimal("-1.41") }],
      plan: null,
      base_delta: decimal("-1.41"),
      adjustments: [],
      net_delta: decimal("-1.41"),
      kickback_delta: decimal("0.00"),
      total: decimal("-1.405"),
    };
    expect(() => checkCreditNote(note)).toThrow(
      "money invariant note_total_is_net broken on the credit note of c1/p1: total -1.405, expected net_delta -1.41",
    );
  });
});
