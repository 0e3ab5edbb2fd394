/**
 * OpenAPI descriptions of the export documents (docs/netview.md "Export"): the topology views under
 * one document, and one recent trace.
 */
import { obj, s, traceSchema } from "../debug/debug-shapes.ts";
import {
  gatewayTopologySchema,
  loadBalancerTopologySchema,
  natTopologySchema,
  topologySchema,
} from "../views/view-shapes.ts";

type JsonSchema = Record<string, unknown>;

const topologyMembers = (topologySchema as { properties: Record<string, JsonSchema> }).properties;

export const topologyExportSchema = obj({
  format: { const: "netview-topology" },
  version: { const: 1 },
  cluster: s("string"),
  exported_at: s("string", "RFC 3339"),
  stale: s("boolean", "taken while the cluster's caches were not authoritative"),
  ...topologyMembers,
  gateways: gatewayTopologySchema,
  nat: natTopologySchema,
  load_balancers: loadBalancerTopologySchema,
});

/** What `/debug/traces/{id}` answers without the record's own members: the trace itself. */
const traceView: JsonSchema = (() => {
  const { id, at, cluster, duration_ms, ...view } = (
    traceSchema as { properties: Record<string, JsonSchema> }
  ).properties;
  return obj(view);
})();

export const traceExportSchema = obj({
  format: { const: "netview-trace" },
  version: { const: 1 },
  id: s("string"),
  at: s("string"),
  cluster: s("string"),
  duration_ms: s("number"),
  view: traceView,
});
