/**
 * What every browsing route does first: find its cluster (the default one at the top level, or the
 * `:cluster` of `/api/v1/clusters/{name}/...`) and mark the response stale when that cluster's
 * caches are not authoritative. The header is set before anything can throw, so error answers from a
 * stale cluster carry it too.
 */
import { type Cluster, type ClusterSet, isStale } from "./cluster.ts";

export const staleHeader = "x-netview-stale";

/** The two places the browsing routes are mounted. */
export const browsePrefixes = ["/api/v1", "/api/v1/clusters/:cluster"] as const;

export interface BrowseContext {
  params: unknown;
  set: { headers: Record<string, string | number> };
}

export function clusterOf(clusters: ClusterSet, context: BrowseContext): Cluster {
  // Elysia leaves `params` undefined on routes without parameters.
  const params = (context.params ?? {}) as Record<string, string | undefined>;
  const cluster = clusters.resolve(params.cluster);
  if (isStale(cluster)) context.set.headers[staleHeader] = "true";
  return cluster;
}

export function paramOf(context: BrowseContext, name: string): string {
  const value = ((context.params ?? {}) as Record<string, string | undefined>)[name];
  if (value === undefined) throw new Error(`route without :${name}`);
  return value;
}
