/**
 * A gauge read at scrape time: each scrape replaces its series with what `samples` yields, so that
 * a series whose subject is gone (a cluster, a chassis, a raft member) disappears instead of keeping
 * its last value, and nothing has to remember to update it. Netview's metrics are of this kind.
 */
import { Gauge, type Registry } from "prom-client";

export type Sample<L extends string> = [labels: Partial<Record<L, string>>, value: number];

export function scrapeGauge<L extends string>(
  registers: Registry[],
  spec: { name: string; help: string; labelNames: readonly L[]; samples: () => Iterable<Sample<L>> },
): Gauge<L> {
  return new Gauge<L>({
    name: spec.name,
    help: spec.help,
    labelNames: spec.labelNames,
    registers,
    collect() {
      this.reset();
      for (const [labels, value] of spec.samples()) this.set(labels, value);
    },
  });
}
