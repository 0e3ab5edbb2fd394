import type { Oracle, OracleInterval, OracleResource } from "../../lib/billing/simulator/oracle.ts";

/** The oracle's resources live at `atMs`, each with the interval that covers that instant. */
export function oracleLiveAt(
  oracle: Oracle,
  atMs: number,
): { resource: OracleResource; interval: OracleInterval }[] {
  return oracle.resources.flatMap((resource) => {
    const interval = resource.intervals.find((i) => Date.parse(i.from) <= atMs && atMs < Date.parse(i.to));
    return interval === undefined ? [] : [{ resource, interval }];
  });
}
