import { describe, expect, test } from "bun:test";
import { Registry } from "prom-client";
import { scrapeGauge } from "./scrape-gauge.ts";

describe("scrapeGauge", () => {
  test("each scrape shows exactly what the samples are then: a series gone is gone", async () => {
    const registry = new Registry();
    let members = ["a", "b"];
    scrapeGauge([registry], {
      name: "t_up",
      help: "up",
      labelNames: ["member"],
      *samples() {
        for (const m of members) yield [{ member: m }, 1];
      },
    });
    const series = async () => (await registry.metrics()).split("\n").filter((l) => l.startsWith("t_up{"));
    expect(await series()).toEqual(['t_up{member="a"} 1', 't_up{member="b"} 1']);
    members = ["b"];
    expect(await series()).toEqual(['t_up{member="b"} 1']);
  });
});
