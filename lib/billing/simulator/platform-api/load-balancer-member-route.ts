import { Elysia } from "elysia";
import { NotFoundError, ValidationError } from "../../../foundation/errors/svc-error.ts";
import { instantFromMs } from "../../../foundation/time/instant.ts";
import { refuseBrowser } from "../control-routes.ts";
import type { LoadBalancerMembers } from "./load-balancer-members.ts";
import type { PlatformView } from "./platform-view.ts";

/** More than a person ever puts on one load balancer, few enough that a listing stays one page. */
const maxMembers = 100;

const memberRule = `the body must be a JSON object with members listeners and pools, each a whole number from 0 to ${maxMembers}`;

/** The counts of a `PUT /load-balancer-members/{id}` body, or the stated 400. */
function readMemberCounts(text: string): { listeners: number; pools: number } {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw new ValidationError(memberRule);
  }
  if (typeof body !== "object" || body === null || Array.isArray(body)) throw new ValidationError(memberRule);
  const { listeners, pools, ...rest } = body as Record<string, unknown>;
  const count = (n: unknown) => Number.isInteger(n) && (n as number) >= 0 && (n as number) <= maxMembers;
  if (!count(listeners) || !count(pools) || Object.keys(rest).length > 0)
    throw new ValidationError(memberRule);
  return { listeners: listeners as number, pools: pools as number };
}

/**
 * `PUT /load-balancer-members/{id}` on the listener of a run (decision 180): from the virtual instant
 * reached, a live load balancer shows this many listeners and pools, as if an operator had added them
 * through octavia, which sends no notification a collector books: what a scenario gives reconciliation
 * to find. A control route like `PUT /clock` (no token, browsers refused), not an octavia one.
 */
export function loadBalancerMemberRoute(deps: {
  view: PlatformView;
  now: () => number;
  members: LoadBalancerMembers;
}) {
  return new Elysia({ name: "svc-simulator-load-balancer-members" }).put(
    "/load-balancer-members/:id",
    async ({ request, params }) => {
      refuseBrowser(request);
      const counts = readMemberCounts(await request.text());
      const at = deps.view.clamp(deps.now());
      if (!deps.view.live("loadbalancer", at).some((l) => l.resource.resource_id === params.id))
        throw new NotFoundError(`no load balancer ${params.id} is live at ${instantFromMs(at)}`);
      deps.members.set(params.id, counts, at);
      return { loadbalancer_id: params.id, ...counts, from: instantFromMs(at) };
    },
    { parse: "none" },
  );
}
