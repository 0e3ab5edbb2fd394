import { describe, expect, test } from "bun:test";
import { readPricingModel } from "../pricing/pricing-model.ts";
import { rateResource } from "../pricing/rate-resource.ts";
import { explainResource } from "./explain-resource.ts";

const model = readPricingModel(`format: 1
name: explain-test
currency: EUR
platforms:
  platform_a:
    volume:
      prices: { size_gb: "0.0001" }
      by:
        member: type
        names: { 5f3c: ssd }
        values:
          ssd: { prices: { size_gb: "0.0002" } }
      states: { available: [size_gb], error: [] }
changes:
  - from: "2026-10-16T00:00:00Z"
    platforms:
      platform_a:
        volume:
          values:
            ssd: { size_gb: "0.0003" }
`);
const volume = { platform: "platform_a", resource_type: "volume" };
const size = (type: string) => ({ size_gb: 100, type });

describe("explainResource", () => {
  test("each interval's price period, attribute and prices; each line with its parts, as rated", () => {
    const intervals = [
      {
        from: "2026-10-01T00:00:00.000Z",
        to: "2026-10-11T00:00:00.000Z",
        state: "available",
        project_id: "p1",
        size: size("hdd"),
      },
      // Retyped to ssd (by its id), across the change on the 16th.
      {
        from: "2026-10-11T00:00:00.000Z",
        to: "2026-10-21T00:00:00.000Z",
        state: "available",
        project_id: "p1",
        size: size("5f3c"),
      },
    ];
    const explained = explainResource(model, volume, intervals);
    expect(
      explained.intervals.map((i) => [
        i.from.slice(5, 10),
        i.attribute?.carried,
        i.attribute?.priced_as,
        i.price_period_from,
        i.prices,
      ]),
    ).toEqual([
      ["10-01", "hdd", "the type's own prices", null, { size_gb: "0.0001" }],
      ["10-11", "5f3c", "ssd", null, { size_gb: "0.0002" }],
      ["10-16", "5f3c", "ssd", "2026-10-16T00:00:00.000Z", { size_gb: "0.0003" }],
    ]);
    const [line] = explained.lines;
    // 24,000 GiB-h at 0.0001 + 12,000 at 0.0002 + 12,000 at 0.0003 = 2.40 + 2.40 + 3.60
    expect([line?.quantity, line?.amount, line?.parts.map((p) => [p.quantity, p.unit_price])]).toEqual([
      "48000.000000",
      "8.40",
      [
        ["24000.000000", "0.0001"],
        ["12000.000000", "0.0002"],
        ["12000.000000", "0.0003"],
      ],
    ]);
    expect(line?.amount).toBe(rateResource(model, volume, intervals).lines[0]?.amount.toFixed(2));
  });
});
