import { describe, expect, test } from "bun:test";
import { type MemberBooking, withBookedMembers } from "./booked-members.ts";
import { type Oracle, type OracleResource, oracleFormat } from "./oracle.ts";

const none = { listeners: 0, pools: 0 };
const lb = (id: string, intervals: [string, string, string][]): OracleResource => ({
  resource_type: "loadbalancer",
  resource_id: id,
  workload: "load-balancer",
  intervals: intervals.map(([from, to, project_id]) => ({
    from,
    to,
    state: "active",
    project_id,
    size: none,
  })),
  faults: [],
});
const oracle: Oracle = {
  format: oracleFormat,
  cloud: "cloud-1",
  seed: 1,
  period_from: "2026-10-01T00:00:00.000Z",
  period_to: "2026-11-01T00:00:00.000Z",
  resources: [
    {
      resource_type: "instance",
      resource_id: "lb-a",
      workload: "steady",
      intervals: [
        {
          from: "2026-10-01T00:00:00.000Z",
          to: "2026-11-01T00:00:00.000Z",
          state: "active",
          project_id: "p",
          size: {},
        },
      ],
      faults: [],
    },
    lb("lb-a", [
      ["2026-10-02T00:00:00.000Z", "2026-10-10T00:00:00.000Z", "p"],
      ["2026-10-10T00:00:00.000Z", "2026-10-20T00:00:00.000Z", "q"],
    ]),
    lb("lb-b", [["2026-10-02T00:00:00.000Z", "2026-10-05T00:00:00.000Z", "p"]]),
  ],
  counts: [],
  faults: [],
  traffic: [],
};

describe("withBookedMembers", () => {
  test("splits the booked load balancer at the sync's instant and carries the size from there; nothing else moves", () => {
    const bookings: MemberBooking[] = [
      { resource_id: "lb-a", from: "2026-10-08T00:00:00.000Z", listeners: 2, pools: 1 },
      { resource_id: "lb-a", from: "2026-10-15T00:00:00.000Z", listeners: 3, pools: 0 },
    ];
    const booked = withBookedMembers(oracle, bookings);
    expect(
      booked.resources[1]?.intervals.map((i) => [
        i.from.slice(5, 10),
        i.to.slice(5, 10),
        i.project_id,
        i.size,
      ]),
    ).toEqual([
      ["10-02", "10-08", "p", none],
      ["10-08", "10-10", "p", { listeners: 2, pools: 1 }],
      ["10-10", "10-15", "q", { listeners: 2, pools: 1 }],
      ["10-15", "10-20", "q", { listeners: 3, pools: 0 }],
    ]);
    expect(booked.resources[0]).toBe(oracle.resources[0] as OracleResource);
    expect(booked.resources[2]).toBe(oracle.resources[2] as OracleResource);
    expect(oracle.resources[1]?.intervals.length).toBe(2);
  });

  test("a booking at or after a load balancer's end changes nothing; one before its start sizes it whole", () => {
    const late = withBookedMembers(oracle, [
      { resource_id: "lb-b", from: "2026-10-05T00:00:00.000Z", listeners: 1, pools: 1 },
    ]);
    expect(late.resources[2]?.intervals).toEqual(oracle.resources[2]?.intervals ?? []);
    const early = withBookedMembers(oracle, [
      { resource_id: "lb-b", from: "2026-10-01T00:00:00.000Z", listeners: 1, pools: 1 },
    ]);
    expect(early.resources[2]?.intervals.map((i) => i.size)).toEqual([{ listeners: 1, pools: 1 }]);
  });

  test("a booking keeps the rest of the size: a load balancer's flavor stays", () => {
    const flavored: Oracle = {
      ...oracle,
      resources: [
        {
          ...lb("lb-c", [["2026-10-02T00:00:00.000Z", "2026-10-05T00:00:00.000Z", "p"]]),
          intervals: [
            {
              from: "2026-10-02T00:00:00.000Z",
              to: "2026-10-05T00:00:00.000Z",
              state: "active",
              project_id: "p",
              size: { ...none, flavor: "large" },
            },
          ],
        },
      ],
    };
    const booked = withBookedMembers(flavored, [
      { resource_id: "lb-c", from: "2026-10-03T00:00:00.000Z", listeners: 1, pools: 2 },
    ]);
    expect(booked.resources[0]?.intervals.map((i) => i.size)).toEqual([
      { ...none, flavor: "large" },
      { listeners: 1, pools: 2, flavor: "large" },
    ]);
  });
});
