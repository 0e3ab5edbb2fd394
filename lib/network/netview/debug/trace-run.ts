/**
 * One trace of a cluster's SB cache from the trace parameters (trace-request.ts): the microflow built,
 * walked through the logical flows, with the library's refusals turned into the API's (an unknown
 * port or datapath is 404, anything else about the packet 400). Shared by `/debug/trace` and
 * `/debug/connectivity`.
 */
import { NotFoundError, ValidationError } from "../../../foundation/errors/svc-error.ts";
import { lookupPortByName } from "../../ovn-logic/network-lookup.ts";
import { tracePacket } from "../../ovn-logic/trace.ts";
import { TraceError, type TraceResult } from "../../ovn-logic/trace-tree.ts";
import type { Cluster } from "../cluster.ts";
import type { QueryValue } from "../query-params.ts";
import { logicalNetworkOf } from "./logical-network-memo.ts";
import { type TraceRequest, traceRequest } from "./trace-request.ts";

export function runTrace(
  cluster: Cluster,
  query: Record<string, QueryValue>,
): { request: TraceRequest; result: TraceResult } {
  const net = logicalNetworkOf(cluster.sb.cache);
  const request = traceRequest(
    query,
    // The network's ports are keyed by logical port name: a lookup, not a scan of every binding.
    {
      binding: (name) => {
        const port = net.ports.get(name);
        return port === undefined ? undefined : cluster.sb.cache.get("Port_Binding", port.uuid);
      },
    },
    (name) => lookupPortByName(net, name),
  );
  try {
    return { request, result: tracePacket(net, request.microflow, request.options) };
  } catch (error) {
    if (error instanceof TraceError) {
      if (/^unknown (port|datapath)/.test(error.message)) throw new NotFoundError(error.message);
      throw new ValidationError(error.message);
    }
    throw error;
  }
}
