/**
 * The sum of every sample of metric `name` in a Prometheus text exposition, over all its label sets
 * (0 when it has none): how a test or the scenario runner reads a counter such as
 * `svc_collector_consumed_total` from a program's `/metrics`.
 */
export function expositionTotal(exposition: string, name: string): number {
  return exposition
    .split("\n")
    .filter((line) => line.startsWith(`${name}{`) || line.startsWith(`${name} `))
    .reduce((sum, line) => sum + Number(line.slice(line.lastIndexOf(" ") + 1)), 0);
}
