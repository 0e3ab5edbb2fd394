import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { formatMoney, formatQuantity } from "../../foundation/money/decimal.ts";
import { readPricingModel } from "./pricing-model.ts";
import { rateResource } from "./rate-resource.ts";

const defaultModel = readPricingModel(
  readFileSync(new URL("../../../pricing/default.yaml", import.meta.url), "utf8"),
);

const small = { vcpus: 2, ram_gb: 4, disk_gb: 40, flavor: "m1.medium" };
const instance = { platform: "platform_a", resource_type: "instance" };

describe("rateResource", () => {
  test("per project and dimension, the states' dimensions, rounded once per line", () => {
    const rating = rateResource(defaultModel, instance, [
      // 10 h active: 20 vcpu-h, 40 GiB-h ram, 400 GiB-h disk, 3 GiB egress
      {
        from: "2026-10-01T00:00:00.000Z",
        to: "2026-10-01T10:00:00.000Z",
        state: "active",
        project_id: "p1",
        size: small,
        counters: { egress_gb: 3 * 2 ** 30 },
      },
      // 5 h shut off: disk only
      {
        from: "2026-10-01T10:00:00.000Z",
        to: "2026-10-01T15:00:00.000Z",
        state: "shutoff",
        project_id: "p1",
        size: small,
        counters: { egress_gb: 0 },
      },
      // transferred: 1 h active for p2, no egress
      {
        from: "2026-10-01T15:00:00.000Z",
        to: "2026-10-01T16:00:00.000Z",
        state: "active",
        project_id: "p2",
        size: small,
        counters: { egress_gb: 0 },
      },
    ]);
    expect(
      rating.lines.map((l) => [l.project_id, l.dimension, formatQuantity(l.quantity), formatMoney(l.amount)]),
    ).toEqual([
      ["p1", "disk_gb", "600.000000", "0.08"],
      ["p1", "egress_gb", "3.000000", "0.15"],
      ["p1", "ram_gb", "40.000000", "0.17"],
      ["p1", "vcpus", "20.000000", "0.25"],
      ["p2", "disk_gb", "40.000000", "0.01"],
      ["p2", "ram_gb", "4.000000", "0.02"],
      ["p2", "vcpus", "2.000000", "0.03"],
    ]);
    expect(rating.unknownStates).toEqual([]);
  });

  test("unknown states, unreadable members, missing counters and unpriced types are reported", () => {
    const rating = rateResource(defaultModel, instance, [
      {
        from: "2026-10-01T00:00:00.000Z",
        to: "2026-10-01T01:00:00.000Z",
        state: "migrating",
        project_id: "p",
        size: small,
      },
      {
        from: "2026-10-01T01:00:00.000Z",
        to: "2026-10-01T02:00:00.000Z",
        state: "active",
        project_id: "p",
        size: { vcpus: "2", ram_gb: 4, disk_gb: -1 },
      },
    ]);
    expect(rating.unknownStates).toEqual(["migrating"]);
    expect(rating.unreadable).toEqual(["vcpus", "disk_gb"]);
    expect(rating.missingCounters).toEqual(["egress_gb"]);
    expect(rating.lines.map((l) => l.dimension)).toEqual(["ram_gb"]);
    const unpriced = rateResource(defaultModel, { platform: "platform_b", resource_type: "instance" }, [
      {
        from: "2026-10-01T00:00:00.000Z",
        to: "2026-10-01T01:00:00.000Z",
        state: "active",
        project_id: "p",
        size: small,
      },
    ]);
    expect(unpriced).toEqual({
      lines: [],
      unpriced: true,
      unknownStates: [],
      unreadable: [],
      missingCounters: [],
    });
  });
});
