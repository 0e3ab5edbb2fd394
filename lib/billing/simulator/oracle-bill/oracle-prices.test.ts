import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import type { JsonObject } from "../../../foundation/json/json-value.ts";
import { scaledText } from "./exact.ts";
import { readOraclePrices } from "./oracle-prices.ts";
import { rateOracleResource } from "./oracle-rating.ts";

/** The oracle's reading of pricing/example.yaml: prices by attribute and a price change (decision 454). */
const example = readOraclePrices(
  readFileSync(new URL("../../../../pricing/example.yaml", import.meta.url), "utf8"),
);
const change = "2026-10-16T00:00:00.000Z";

function rate(
  resourceType: string,
  intervals: { from: string; to: string; state?: string; size: JsonObject }[],
  egress?: number,
) {
  const resource = {
    resource_type: resourceType,
    resource_id: "r1",
    workload: "w",
    intervals: intervals.map((i) => ({
      state: resourceType === "volume" ? "in-use" : "active",
      project_id: "p1",
      ...i,
    })),
    faults: [],
  };
  const traffic = new Map(
    egress === undefined
      ? []
      : intervals.map((i) => [
          `r1 ${i.from} ${i.to}`,
          { resource_id: "r1", from: i.from, to: i.to, egress_bytes: egress, ingress_bytes: 0 },
        ]),
  );
  const rating = rateOracleResource(example, "platform_a", resource, traffic);
  return {
    lines: rating.lines.map((l) => `${l.dimension} ${l.quantity} ${scaledText(l.amount, 2)}`),
    byValue: rating.byValue,
    named: rating.named,
    split: rating.split,
  };
}

const tenHours = { from: "2026-10-02T00:00:00.000Z", to: "2026-10-02T10:00:00.000Z" };

describe("prices by attribute (docs/pricing-model.md#prices-by-attribute)", () => {
  test("a flavor's own price for what it lists, the type's for the rest", () => {
    // c1.large: vCPUs at 0.0110, the rest at the type's prices.
    const size = { flavor: "c1.large", vcpus: 8, ram_gb: 8, disk_gb: 60 };
    expect(rate("instance", [{ ...tenHours, size }])).toEqual({
      lines: ["disk_gb 600.000000 0.08", "ram_gb 80.000000 0.34", "vcpus 80.000000 0.88"],
      byValue: 1,
      named: 0,
      split: 0,
    });
  });

  test("a flavor priced whole: one line of hours, none per vCPU, GiB of RAM or disk", () => {
    const size = { flavor: "r1.large", vcpus: 4, ram_gb: 16, disk_gb: 40 };
    expect(rate("instance", [{ ...tenHours, size }]).lines).toEqual(["hours 10.000000 1.15"]);
    // Shut off it bills the type's disk price under its own states.
    expect(rate("instance", [{ ...tenHours, state: "shutoff", size }]).lines).toEqual([
      "disk_gb 400.000000 0.06",
    ]);
  });

  test("a flavor the model does not list is priced by the type", () => {
    const size = { flavor: "m1.small", vcpus: 1, ram_gb: 2, disk_gb: 20 };
    expect(rate("instance", [{ ...tenHours, size }])).toMatchObject({
      lines: ["disk_gb 200.000000 0.03", "ram_gb 20.000000 0.08", "vcpus 10.000000 0.13"],
      byValue: 0,
    });
  });

  test("a volume type carried by id is priced by the name the model gives it; an unnamed type by the type", () => {
    const ssd = { type: "5f3c2a8e-1b7d-4c1e-9a53-0d6f4b2e8c11", size_gb: 100 };
    expect(rate("volume", [{ ...tenHours, size: ssd }])).toEqual({
      lines: ["size_gb 1000.000000 0.20"],
      byValue: 1,
      named: 1,
      split: 0,
    });
    expect(rate("volume", [{ ...tenHours, size: { type: "hdd", size_gb: 100 } }]).lines).toEqual([
      "size_gb 1000.000000 0.06",
    ]);
    const standard = { type: "c7b2f5d1-8e4a-4d6b-a9c3-4e7f0b3d6c33", size_gb: 100 };
    expect(rate("volume", [{ ...tenHours, size: standard }])).toMatchObject({
      lines: ["size_gb 1000.000000 0.11"],
      byValue: 0,
    });
  });

  test("an image by its disk format, a load balancer by its flavor or by the type without one", () => {
    expect(rate("image", [{ ...tenHours, size: { disk_format: "raw", size_gb: 1000 } }]).lines).toEqual([
      "size_gb 10000.000000 1.20",
    ]);
    expect(rate("image", [{ ...tenHours, size: { disk_format: "qcow2", size_gb: 1000 } }]).lines).toEqual([
      "size_gb 10000.000000 0.90",
    ]);
    const large = { flavor: "7d3b1c9e-2f4a-4e6b-8c1d-5a9e0f3b2c44", listeners: 1, pools: 1 };
    expect(rate("loadbalancer", [{ ...tenHours, size: large }]).lines).toEqual([
      "hours 10.000000 0.60",
      "listeners 10.000000 0.06",
      "pools 10.000000 0.04",
    ]);
    expect(rate("loadbalancer", [{ ...tenHours, size: { listeners: 1, pools: 1 } }]).lines).toEqual([
      "hours 10.000000 0.25",
      "listeners 10.000000 0.06",
      "pools 10.000000 0.04",
    ]);
  });
});

describe("price changes (docs/pricing-model.md#price-changes)", () => {
  const across = { from: "2026-10-15T12:00:00.000Z", to: "2026-10-16T12:00:00.000Z" };

  test("an interval across the change is cut at the instant: each half at its price, one line rounded once", () => {
    const size = { flavor: "m1.xlarge", vcpus: 8, ram_gb: 16, disk_gb: 160 };
    // 96 vCPU-hours at 0.0125 and 96 at 0.0135: 1.2 + 1.296 = 2.496, one rounding: 2.50.
    expect(rate("instance", [{ ...across, size }])).toMatchObject({
      lines: ["disk_gb 3840.000000 0.54", "ram_gb 384.000000 1.61", "vcpus 192.000000 2.50"],
      split: 1,
    });
  });

  test("equals the two half-months billed apart, within the one rounding", () => {
    const size = { flavor: "r1.large", vcpus: 4, ram_gb: 16, disk_gb: 40 };
    const month = { from: "2026-10-01T00:00:00.000Z", to: "2026-11-01T00:00:00.000Z" };
    // 360 hours at 0.1150 then 384 at 0.1200: 41.40 + 46.08.
    expect(rate("instance", [{ ...month, size }]).lines).toEqual(["hours 744.000000 87.48"]);
    const halves = [
      { from: month.from, to: change, size },
      { from: change, to: month.to, size },
    ];
    expect(rate("instance", halves)).toMatchObject({ lines: ["hours 744.000000 87.48"], split: 0 });
  });

  test("a value that changes its own price; a value that takes the type's follows the type's change", () => {
    const ssd = { type: "ssd", size_gb: 1000 };
    // 12 h at 0.00020 and 12 h at 0.00022 a GiB-hour: 2.40 + 2.64.
    expect(rate("volume", [{ ...across, size: ssd }]).lines).toEqual(["size_gb 24000.000000 5.04"]);
    const c1 = { flavor: "c1.large", vcpus: 8, ram_gb: 8, disk_gb: 60 };
    // c1.large keeps its own vCPU price 0.0110 across the type's change; the rest as the type.
    expect(rate("instance", [{ ...across, size: c1 }]).lines).toContain("vcpus 192.000000 2.11");
  });

  test("egress read for a whole interval is priced when its price holds across the change", () => {
    const size = { flavor: "m1.small", vcpus: 1, ram_gb: 2, disk_gb: 20 };
    expect(rate("instance", [{ ...across, size }], 2 ** 31).lines).toContain("egress_gb 2.000000 0.10");
  });

  test("refuses egress whose price changes inside an interval it reads as one", () => {
    const text = readFileSync(new URL("../../../../pricing/example.yaml", import.meta.url), "utf8").replace(
      'vcpus: "0.0135"',
      'vcpus: "0.0135"\n            egress_gb: "0.06"',
    );
    const size = { flavor: "m1.small", vcpus: 1, ram_gb: 2, disk_gb: 20 };
    const interval = { ...across, state: "active", project_id: "p1", size };
    const resource = {
      resource_type: "instance",
      resource_id: "r1",
      workload: "w",
      intervals: [interval],
      faults: [],
    };
    const traffic = new Map([
      [`r1 ${across.from} ${across.to}`, { resource_id: "r1", ...across, egress_bytes: 1, ingress_bytes: 0 }],
    ]);
    expect(() => rateOracleResource(readOraclePrices(text), "platform_a", resource, traffic)).toThrow(
      /cannot cut it at a price change of egress_gb/,
    );
  });
});

describe("what the oracle refuses to read", () => {
  test("a member it does not price, with its path", () => {
    const text =
      "format: 1\nname: x\ncurrency: EUR\nplatforms:\n  platform_a:\n    volume:\n      prices: {size_gb: '1'}\n      states: {}\n      tiers: []\n";
    expect(() => readOraclePrices(text)).toThrow(
      "platforms.platform_a.volume.tiers is a member the oracle does not price",
    );
  });

  test("a change of a type the model does not price", () => {
    const text =
      "format: 1\nname: x\ncurrency: EUR\nplatforms: {}\nchanges:\n  - from: '2026-10-16T00:00:00Z'\n    platforms: {platform_a: {volume: {prices: {size_gb: '1'}}}}\n";
    expect(() => readOraclePrices(text)).toThrow(
      "changes.0.platforms.platform_a.volume is not a type the model prices",
    );
  });
});
