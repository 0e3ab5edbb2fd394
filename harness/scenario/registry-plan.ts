import type {
  SnapshotProject as RegistryProject,
  SnapshotRelation as RegistryRelation,
  RegistrySnapshot,
} from "../../lib/billing/compare/registry-snapshot.ts";
import type { PricingAdjustment } from "../../lib/billing/pricing/pricing-adjustments.ts";
import { attributingRelationType } from "../../lib/billing/statements/build-statements.ts";
import { compare } from "../../lib/foundation/collections/compare.ts";
import type { Period } from "../../lib/foundation/time/period.ts";

/**
 * A project of a scenario's registry plan: the n-th classic tenant of the month (the cloud's projects
 * that no `infrastructure_tenant` relation reaches, by external id), a project of the month's cloud by
 * its external id, a cluster manager the simulator registered, or a virtual project the plan makes
 * (`<platform>/<external_id>`).
 */
export type ProjectRef =
  | { tenant: number }
  | { project: string }
  | { manager: "alpha" | "beta" }
  | { virtual: string };

export interface PlannedRelation {
  from: ProjectRef;
  to: ProjectRef;
  type: "managed_by" | "member_of" | "infrastructure_tenant";
  /** Empty: a relation without `pricing_adjustments` (an attribution). */
  adjustments: PricingAdjustment[];
  /** When it starts: the month's first instant when absent. */
  validFrom?: string;
  /** Closed at this instant right after it is made (a relation is closed, never removed). */
  validTo?: string;
}

/** What a scenario adds to the registry the simulator made: virtual projects and adjusting relations. */
export interface RegistryPlan {
  virtual: { platform: "meta" | "partner"; external_id: string; name: string }[];
  relations: PlannedRelation[];
}

/** The adjustment walk the engine runs with in every scenario, recorded in the registry snapshot. */
export const adjustmentWalk = { relationTypes: ["managed_by", "member_of"], depth: 3 } as const;

/** The garden cloud of the cluster-manager projects (`SVC_SIM_GARDEN_CLOUD`). */
export const gardenCloud = "garden-1";

interface Page<T> {
  items: T[];
  next_cursor: string | null;
}

/** The registry routes of the Reporting API with an admin token; any answer but the expected one throws. */
class RegistryApi {
  constructor(
    private readonly url: string,
    private readonly token: string,
  ) {}

  private async call<T>(method: string, path: string, expected: number, body?: unknown): Promise<T> {
    const response = await fetch(`${this.url}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${this.token}`,
        ...(body === undefined ? {} : { "content-type": "application/json" }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await response.text();
    if (response.status !== expected)
      throw new Error(`${method} ${path} answered ${response.status}: ${text.slice(0, 500)}`);
    return JSON.parse(text) as T;
  }

  async all<T>(path: string): Promise<T[]> {
    const out: T[] = [];
    let cursor: string | null = null;
    do {
      const query = new URLSearchParams({ limit: "1000", ...(cursor === null ? {} : { cursor }) });
      const page: Page<T> = await this.call("GET", `${path}${path.includes("?") ? "&" : "?"}${query}`, 200);
      out.push(...page.items);
      cursor = page.next_cursor;
    } while (cursor !== null);
    return out;
  }

  post<T>(path: string, body: unknown): Promise<T> {
    return this.call("POST", path, 201, body);
  }

  patch<T>(path: string, body: unknown): Promise<T> {
    return this.call("PATCH", path, 200, body);
  }

  /** Every project and every relation (each project's outgoing ones), as the API lists them. */
  async snapshot(): Promise<{ projects: RegistryProject[]; relations: RegistryRelation[] }> {
    const projects = await this.all<RegistryProject>("/api/v1/projects");
    const relations: RegistryRelation[] = [];
    for (const p of projects)
      relations.push(
        ...(await this.all<RegistryRelation>(`/api/v1/projects/${p.id}/relations?direction=outgoing`)),
      );
    return { projects, relations };
  }
}

/**
 * The project a plan's reference names in a registry: the n-th classic tenant of `cloud` (its projects
 * no `infrastructure_tenant` relation reaches, by external id), a project of `cloud` by its external
 * id, a cluster manager of the garden cloud, or a virtual project (`<platform>/<external_id>`, its cloud being its platform).
 */
export function projectByRef(
  registry: { projects: readonly RegistryProject[]; relations: readonly RegistryRelation[] },
  cloud: string,
  ref: ProjectRef,
): RegistryProject {
  const attributed = new Set(
    registry.relations.filter((r) => r.relation_type === attributingRelationType).map((r) => r.target_id),
  );
  const tenants = registry.projects
    .filter((p) => p.cloud === cloud && !attributed.has(p.id))
    .sort((a, b) => compare(a.external_id, b.external_id));
  const found =
    "tenant" in ref
      ? tenants[ref.tenant]
      : "project" in ref
        ? registry.projects.find((p) => p.cloud === cloud && p.external_id === ref.project)
        : "manager" in ref
          ? registry.projects.find((p) => p.cloud === gardenCloud && p.external_id === ref.manager)
          : registry.projects.find((p) => `${p.platform}/${p.external_id}` === ref.virtual);
  if (found === undefined)
    throw new Error(`the registry plan names ${JSON.stringify(ref)}, which is not there`);
  return found;
}

/** What the registry stage made, for its report line. */
export interface RegistryMade {
  /** The plan it made, as drawn for this month. */
  plan: RegistryPlan;
  snapshot: RegistrySnapshot;
  /** Projects and `infrastructure_tenant` relations the simulator registered. */
  registered: { projects: number; relations: number };
  made: { projects: number; relations: number; adjustments: number };
}

/**
 * Makes a scenario's registry plan through the Reporting API after the simulator registered the
 * month's projects: its virtual projects, then its relations in the plan's order, each valid from the
 * month's first instant unless it says otherwise (a relation made now would start after the month and
 * not count for it), closed at once when it has an end. Returns the registry
 * as the API then lists it, with the walk the engine runs with: what `simulator compare --registry`
 * prices the oracle with.
 */
export async function applyRegistryPlan(options: {
  reportingUrl: string;
  adminToken: string;
  cloud: string;
  period: Period;
  plan: RegistryPlan;
}): Promise<RegistryMade> {
  const api = new RegistryApi(options.reportingUrl, options.adminToken);
  const before = await api.snapshot();
  const virtual = new Map<string, RegistryProject>();
  for (const v of options.plan.virtual) {
    const project = await api.post<RegistryProject>("/api/v1/projects", {
      platform: v.platform,
      cloud: v.platform,
      external_id: v.external_id,
      name: v.name,
      metadata: { created_by: "svc-scenario" },
    });
    virtual.set(`${v.platform}/${v.external_id}`, project);
  }
  const known = { projects: [...before.projects, ...virtual.values()], relations: before.relations };
  const resolve = (ref: ProjectRef) => projectByRef(known, options.cloud, ref);
  for (const r of options.plan.relations) {
    const source = resolve(r.from).id;
    const made = await api.post<RegistryRelation>(`/api/v1/projects/${source}/relations`, {
      target_id: resolve(r.to).id,
      relation_type: r.type,
      metadata: {
        created_by: "svc-scenario",
        ...(r.adjustments.length === 0 ? {} : { pricing_adjustments: r.adjustments }),
      },
      valid_from: r.validFrom ?? options.period.from,
    });
    if (r.validTo !== undefined)
      await api.patch(`/api/v1/projects/${source}/relations/${made.id}`, { valid_to: r.validTo });
  }
  const after = await api.snapshot();
  return {
    snapshot: {
      ...after,
      adjustment_relation_types: [...adjustmentWalk.relationTypes],
      adjustment_depth: adjustmentWalk.depth,
    },
    plan: options.plan,
    registered: { projects: before.projects.length, relations: before.relations.length },
    made: {
      projects: virtual.size,
      relations: options.plan.relations.length,
      adjustments: options.plan.relations.reduce((n, r) => n + r.adjustments.length, 0),
    },
  };
}
