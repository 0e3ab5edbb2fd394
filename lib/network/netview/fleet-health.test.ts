import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import type { Row } from "../ovsdb/datum.ts";
import { fleetHealth } from "./fleet-health.ts";

const iface = (uuid: string, stats: Record<string, number>, link = "up"): Row => ({
  _uuid: uuid,
  link_state: link,
  statistics: stats,
});

describe("fleet health", () => {
  test("deltas between reads, resets not counted, unreachable members excluded from totals", () => {
    const first = fleetHealth(
      [
        {
          systemId: "a",
          connected: true,
          bridges: 1,
          ports: 2,
          interfaces: [iface("i1", { rx_errors: 1 }), iface("i2", { tx_dropped: 3 }, "down")],
        },
        { systemId: "b", connected: false, bridges: 0, ports: 0, interfaces: [] },
      ],
      new Map(),
    );
    expect(first.health).toMatchObject({
      chassis: 2,
      connected: 1,
      unreachable: 1,
      bridges: 1,
      ports: 2,
      interfaces: 2,
      down_interfaces: 1,
      error_interfaces: 0,
      drop_interfaces: 0,
    });
    expect(first.health.members[1]).toEqual({
      system_id: "b",
      connected: false,
      bridges: 0,
      ports: 0,
      interfaces: 0,
      down_interfaces: 0,
      error_interfaces: 0,
      drop_interfaces: 0,
    });
    const second = fleetHealth(
      [
        {
          systemId: "a",
          connected: true,
          bridges: 1,
          ports: 2,
          interfaces: [iface("i1", { rx_errors: 2 }), iface("i2", { tx_dropped: 0 })],
        },
      ],
      first.memory,
    );
    expect(second.health).toMatchObject({ error_interfaces: 1, drop_interfaces: 0, down_interfaces: 0 });
  });

  test("property: totals are the sums over connected members, and a repeated read shows no delta", () => {
    const stats = fc.record({
      rx_errors: fc.nat(5),
      tx_errors: fc.nat(5),
      rx_dropped: fc.nat(5),
      tx_dropped: fc.nat(5),
    });
    const member = fc.record({
      connected: fc.boolean(),
      bridges: fc.nat(4),
      ports: fc.nat(9),
      interfaces: fc.array(fc.tuple(stats, fc.constantFrom("up", "down")), { maxLength: 5 }),
    });
    fc.assert(
      fc.property(fc.array(member, { maxLength: 5 }), fc.array(member, { maxLength: 5 }), (before, after) => {
        const inputs = (ms: typeof before) =>
          ms.map((m, i) => ({
            systemId: `c${i}`,
            connected: m.connected,
            bridges: m.bridges,
            ports: m.ports,
            interfaces: m.interfaces.map(([s, link], j) => iface(`i${j}`, s, link)),
          }));
        const first = fleetHealth(inputs(before), new Map());
        const second = fleetHealth(inputs(after), first.memory);
        const h = second.health;
        const connected = h.members.filter((m) => m.connected);
        expect(h.interfaces).toBe(connected.reduce((n, m) => n + m.interfaces, 0));
        expect(h.error_interfaces).toBe(connected.reduce((n, m) => n + m.error_interfaces, 0));
        expect(h.connected + h.unreachable).toBe(h.chassis);
        const again = fleetHealth(inputs(after), second.memory).health;
        expect(again.error_interfaces + again.drop_interfaces).toBe(0);
      }),
    );
  });
});
