import { describe, expect, test } from "bun:test";
import {
  type Generation,
  heatmap,
  observeChassis,
  observeNbGlobal,
  timeline,
} from "./propagation-tracker.ts";

const nbGlobal = (nb: number, sb: number, hv: number, t: number) => ({
  _uuid: "g",
  nb_cfg: nb,
  nb_cfg_timestamp: t,
  sb_cfg: sb,
  sb_cfg_timestamp: sb === nb ? t + 10 : 0,
  hv_cfg: hv,
  hv_cfg_timestamp: hv === nb ? t + 50 : 0,
});
const chassis = (name: string, nb: number, t: number) => ({
  _uuid: name,
  name,
  nb_cfg: nb,
  nb_cfg_timestamp: t,
});

describe("propagation tracker", () => {
  test("a generation starts at NB, reaches the SB, each chassis, then every chassis", () => {
    let gens: Generation[] = [];
    gens = observeNbGlobal(gens, nbGlobal(1, 0, 0, 1000), 0, 100);
    gens = observeNbGlobal(gens, nbGlobal(1, 1, 0, 1000), 0, 100);
    gens = observeChassis(gens, chassis("a", 1, 1020), 0);
    gens = observeChassis(gens, chassis("b", 1, 1045), 0);
    gens = observeNbGlobal(gens, nbGlobal(1, 1, 1, 1000), 0, 100);
    expect(timeline(gens, 5)).toEqual([
      {
        nb_cfg: 1,
        started_at: new Date(1000).toISOString(),
        sb_ms: 10,
        hv_ms: 50,
        chassis: [
          { name: "b", ms: 45 },
          { name: "a", ms: 20 },
        ],
      },
    ]);
  });

  test("a chassis that jumps generations reached each at once; a lagging one shows as null", () => {
    let gens: Generation[] = [];
    for (const n of [1, 2, 3]) gens = observeNbGlobal(gens, nbGlobal(n, n, 0, n * 1000), 0, 100);
    gens = observeChassis(gens, chassis("a", 3, 3100), 0);
    gens = observeChassis(gens, chassis("b", 1, 1100), 0);
    expect(heatmap(gens, ["a", "b", "c"], 3)).toEqual({
      generations: [1, 2, 3],
      chassis: ["a", "b", "c"],
      cells: [
        [2100, 1100, 100],
        [100, null, null],
        [null, null, null],
      ],
    });
  });

  test("bounded, and an NB that goes back starts over", () => {
    let gens: Generation[] = [];
    for (let n = 1; n <= 10; n++) gens = observeNbGlobal(gens, nbGlobal(n, 0, 0, n), 0, 4);
    expect(gens.map((g) => g.nb_cfg)).toEqual([7, 8, 9, 10]);
    gens = observeNbGlobal(gens, nbGlobal(2, 0, 0, 99), 0, 4);
    expect(gens.map((g) => g.nb_cfg)).toEqual([2]);
    // A zero timestamp (northd has not stamped it yet) takes the time netview saw it.
    expect(observeNbGlobal([], { _uuid: "g", nb_cfg: 5, nb_cfg_timestamp: 0 }, 777, 4)[0]?.started_at).toBe(
      777,
    );
  });
});
