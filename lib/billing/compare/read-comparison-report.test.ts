import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import { type Comparison, comparisonReport } from "./compare-oracle.ts";
import { ComparisonReportError, readComparisonReport } from "./read-comparison-report.ts";

const word = fc.stringMatching(/^[a-z0-9][a-z0-9_.-]{0,12}$/);
const side = fc.oneof(
  fc.constant("-"),
  fc
    .tuple(fc.stringMatching(/^-?\d{1,5}\.\d{2}$/), fc.stringMatching(/^\d{1,4}\.\d{6}$/))
    .map(([amount, quantity]) => `${amount} (${quantity})`),
);
const difference = fc.record({
  resource: fc.tuple(word, word).map(([t, id]) => `${t}/${id}`),
  missingCreate: fc.boolean(),
  lines: fc.array(
    fc.record({ line: fc.tuple(word, word).map(([p, d]) => `${p}/${d}`), oracle: side, export: side }),
    { minLength: 1, maxLength: 4 },
  ),
});

const figure = fc.oneof(side, fc.stringMatching(/^-?\d{1,5}\.\d{2}$/));
const statementDifference = fc.record({
  subject: fc
    .tuple(fc.constantFrom("statement", "credit note", "kickbacks"), word)
    .map(([s, k]) => `${s} ${k}`),
  lines: fc.array(
    fc.record({
      line: fc.stringMatching(/^[a-z_]+:[a-z_.]+:\d\.\d{6}@[a-z0-9-]+#[0-9a-f-]{8}$/),
      oracle: figure,
      export: figure,
    }),
    { minLength: 1, maxLength: 4 },
  ),
});

describe("readComparisonReport", () => {
  test("reads back every report with statements comparisonReport prints", () => {
    fc.assert(
      fc.property(
        fc.array(difference, { maxLength: 3 }),
        fc.array(statementDifference, { maxLength: 4 }),
        fc.nat(50),
        fc.constantFrom("statements" as const, "credit notes" as const),
        fc.option(fc.nat(9), { nil: undefined }),
        (differences, statementDifferences, extra, compared, kept) => {
          const comparison: Comparison = {
            resources: differences.length + extra,
            differences,
            ...(kept === undefined ? {} : { kept }),
            statements: {
              compared,
              statements: statementDifferences.length + extra,
              settlements: extra,
              differences: statementDifferences,
            },
          };
          expect(readComparisonReport(comparisonReport(comparison))).toEqual(comparison);
        },
      ),
    );
  });

  test("reads back every report comparisonReport prints", () => {
    fc.assert(
      fc.property(fc.array(difference, { maxLength: 6 }), fc.nat(500), (differences, extra) => {
        const comparison: Comparison = { resources: differences.length + extra, differences };
        expect(readComparisonReport(comparisonReport(comparison))).toEqual(comparison);
      }),
    );
  });

  test("an example as compare prints it", () => {
    const lines = [
      "instance/i-1 [missing-create]: p-1/vcpus oracle 12.00 (744.000000) export 6.00 (372.000000); p-1/ram_gb oracle 1.00 (744.000000) export -",
      "compared 260 resources: 1 differ (1 marked missing-create)",
    ];
    expect(readComparisonReport(lines)).toEqual({
      resources: 260,
      differences: [
        {
          resource: "instance/i-1",
          missingCreate: true,
          lines: [
            { line: "p-1/vcpus", oracle: "12.00 (744.000000)", export: "6.00 (372.000000)" },
            { line: "p-1/ram_gb", oracle: "1.00 (744.000000)", export: "-" },
          ],
        },
      ],
    });
  });
});

describe("readComparisonReport refusals", () => {
  test("no tally line", () => {
    expect(() => readComparisonReport(["instance/i-1: p/v oracle - export 1.00 (1.000000)"])).toThrow(
      ComparisonReportError,
    );
  });
  test("a statement tally that disagrees with its lines", () => {
    expect(() =>
      readComparisonReport([
        "compared 3 resources: 0 differ (0 marked missing-create)",
        "compared 2 statements and 1 kickback settlements: 1 differ",
      ]),
    ).toThrow("disagrees");
  });
  test("a tally that disagrees with its lines", () => {
    expect(() => readComparisonReport(["compared 3 resources: 1 differ (0 marked missing-create)"])).toThrow(
      "disagrees",
    );
  });
});
