import type { Logger } from "../../foundation/log/logger.ts";
import type { Period } from "../../foundation/time/period.ts";
import type { Tenant } from "./month.ts";

/** `created_by` in the metadata of every row and relation the simulator registers. */
export const registeredBy = "svc-simulator";

/** The platform of the cluster-manager projects `alpha` and `beta` (decision 240). */
export const clusterManagerPlatform = "gardener";

/** The relation through which a cluster manager is billed for its infrastructure tenant. */
const relationType = "infrastructure_tenant";

/** Registration could not finish: the run ends with exit 1, writing and publishing nothing. */
export class RegistrationError extends Error {}

export interface RegistrationInput {
  /** The Reporting API's base URL (routes are under `<base>/api/v1`). */
  reportingUrl: URL;
  /** An API token of role admin. */
  apiToken: string;
  cloud: string;
  gardenCloud: string;
  period: Period;
  tenants: readonly Tenant[];
  logger: Logger;
}

export interface RegistrationReport {
  projects_created: number;
  projects_found: number;
  relations_created: number;
  relations_found: number;
}

interface ProjectRow {
  id: string;
  external_id: string;
}

interface RelationRow {
  id: string;
  target_id: string;
  relation_type: string;
  valid_from: string;
  valid_to: string | null;
}

interface Answer {
  status: number;
  body: unknown;
}

function detailOf(body: unknown): string {
  if (typeof body === "object" && body !== null) {
    const problem = body as { detail?: unknown; title?: unknown };
    if (typeof problem.detail === "string") return problem.detail;
    if (typeof problem.title === "string") return problem.title;
  }
  return "no detail";
}

/** In force at `at` (ms): started at or before it and not ended by it. */
function inForce(relation: RelationRow, at: number): boolean {
  return (
    Date.parse(relation.valid_from) <= at &&
    (relation.valid_to === null || Date.parse(relation.valid_to) > at)
  );
}

/**
 * `run --register-projects` (docs/simulator.md#registering-the-projects): one `platform_a` project per tenant under
 * the cloud, `alpha` and `beta` under the garden cloud, and one `infrastructure_tenant` relation from
 * each to its infrastructure tenant, valid from the month's first instant with no end. Existing
 * projects are found by (cloud, external id) and left as they are, a relation to the same tenant
 * in force from the month's start on stays, so a rerun posts nothing new. A relation of the manager to
 * another tenant in force at the month's start or now refuses the run with what to do (decision 241).
 */
export async function registerProjects(input: RegistrationInput): Promise<RegistrationReport> {
  const api = new RegistryClient(input.reportingUrl, input.apiToken);
  const report: RegistrationReport = {
    projects_created: 0,
    projects_found: 0,
    relations_created: 0,
    relations_found: 0,
  };
  const ensure = async (platform: string, cloud: string, externalId: string, name: string) => {
    const { project, created } = await api.ensureProject({
      platform,
      cloud,
      external_id: externalId,
      name,
      metadata: { created_by: registeredBy },
    });
    if (created) report.projects_created += 1;
    else report.projects_found += 1;
    return project;
  };

  const tenantProjects = new Map<string, ProjectRow>();
  for (const tenant of input.tenants) {
    tenantProjects.set(
      tenant.project_id,
      await ensure("platform_a", input.cloud, tenant.project_id, tenant.name),
    );
  }
  const managers: { tenant: Tenant; manager: ProjectRow; name: string }[] = [];
  for (const tenant of input.tenants) {
    if (tenant.cluster_manager === null) continue;
    const manager = await ensure(
      clusterManagerPlatform,
      input.gardenCloud,
      tenant.cluster_manager,
      tenant.cluster_manager,
    );
    managers.push({ tenant, manager, name: tenant.cluster_manager });
  }

  const monthStart = Date.parse(input.period.from);
  const now = Date.now();
  for (const { tenant, manager, name } of managers) {
    const target = tenantProjects.get(tenant.project_id) as ProjectRow;
    const relations = (await api.outgoingRelations(manager.id)).filter(
      (r) => r.relation_type === relationType,
    );
    const same = relations.find(
      (r) => r.target_id === target.id && (r.valid_to === null || Date.parse(r.valid_to) > monthStart),
    );
    if (same !== undefined) {
      report.relations_found += 1;
      continue;
    }
    const other = relations.find(
      (r) => r.target_id !== target.id && (inForce(r, monthStart) || inForce(r, now)),
    );
    if (other !== undefined) {
      throw new RegistrationError(conflictMessage({ ...input, manager, name, relation: other }));
    }
    await api.createRelation(manager.id, {
      target_id: target.id,
      relation_type: relationType,
      metadata: { created_by: registeredBy },
      valid_from: input.period.from,
    });
    report.relations_created += 1;
  }
  input.logger.info({ ...report }, "projects registered");
  return report;
}

function conflictMessage(input: {
  cloud: string;
  gardenCloud: string;
  period: Period;
  manager: ProjectRow;
  name: string;
  relation: RelationRow;
}): string {
  const { manager, relation, name } = input;
  const opening =
    `cannot register ${input.period.name} of cloud ${input.cloud}: the cluster-manager project ${name} of ` +
    `garden cloud ${input.gardenCloud} already has infrastructure_tenant relation ${relation.id} to another ` +
    `tenant, valid from ${relation.valid_from}${relation.valid_to === null ? " without an end" : ` to ${relation.valid_to}`}`;
  if (Date.parse(relation.valid_from) < Date.parse(input.period.from)) {
    return (
      `${opening} (an earlier month's): end it at this month's start with ` +
      `PATCH /api/v1/projects/${manager.id}/relations/${relation.id} {"valid_to": "${input.period.from}"}, then run again`
    );
  }
  return (
    `${opening}, starting at or after this month's start: register this month under another garden cloud ` +
    `(SVC_SIM_GARDEN_CLOUD)`
  );
}

/** The registry routes of the Reporting API (docs/reporting-api.md#routes) the simulator uses, with an admin token. */
class RegistryClient {
  constructor(
    private readonly base: URL,
    private readonly token: string,
  ) {}

  private async call(method: string, path: string, body?: unknown): Promise<Answer> {
    const url = new URL(`${this.base.pathname.replace(/\/$/, "")}${path}`, this.base);
    let response: Response;
    try {
      response = await fetch(url, {
        method,
        headers: {
          authorization: `Bearer ${this.token}`,
          accept: "application/json",
          ...(body === undefined ? {} : { "content-type": "application/json" }),
        },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
    } catch (cause) {
      throw new RegistrationError(
        `cannot reach the Reporting API at SVC_SIM_REPORTING_URL: ${cause instanceof Error ? cause.message : String(cause)}`,
        { cause },
      );
    }
    const text = await response.text();
    let parsed: unknown = null;
    try {
      parsed = text === "" ? null : JSON.parse(text);
    } catch {
      parsed = null;
    }
    return { status: response.status, body: parsed };
  }

  private refused(what: string, answer: Answer): RegistrationError {
    const hint =
      answer.status === 401 || answer.status === 403
        ? " (SVC_SIM_API_TOKEN must be an API token of role admin)"
        : "";
    return new RegistrationError(`${what} answered ${answer.status}: ${detailOf(answer.body)}${hint}`);
  }

  async findProject(cloud: string, externalId: string): Promise<ProjectRow | null> {
    const query = new URLSearchParams({ cloud, external_id: externalId, limit: "1" });
    const answer = await this.call("GET", `/api/v1/projects?${query}`);
    if (answer.status !== 200) throw this.refused("GET /api/v1/projects", answer);
    const items = (answer.body as { items: ProjectRow[] }).items;
    return items.find((p) => p.external_id === externalId) ?? null;
  }

  async ensureProject(body: {
    platform: string;
    cloud: string;
    external_id: string;
    name: string;
    metadata: Record<string, string>;
  }): Promise<{ project: ProjectRow; created: boolean }> {
    const found = await this.findProject(body.cloud, body.external_id);
    if (found !== null) return { project: found, created: false };
    const answer = await this.call("POST", "/api/v1/projects", body);
    if (answer.status === 201) return { project: answer.body as ProjectRow, created: true };
    // Registered meanwhile by someone else: the row stands as it is.
    if (answer.status === 409) {
      const again = await this.findProject(body.cloud, body.external_id);
      if (again !== null) return { project: again, created: false };
    }
    throw this.refused(`POST /api/v1/projects for ${body.cloud}/${body.external_id}`, answer);
  }

  async outgoingRelations(projectId: string): Promise<RelationRow[]> {
    const out: RelationRow[] = [];
    let cursor: string | null = null;
    do {
      const query = new URLSearchParams({
        direction: "outgoing",
        relation_type: relationType,
        limit: "1000",
      });
      if (cursor !== null) query.set("cursor", cursor);
      const answer = await this.call("GET", `/api/v1/projects/${projectId}/relations?${query}`);
      if (answer.status !== 200) throw this.refused("GET /api/v1/projects/{id}/relations", answer);
      const page = answer.body as { items: RelationRow[]; next_cursor: string | null };
      out.push(...page.items);
      cursor = page.next_cursor;
    } while (cursor !== null);
    return out;
  }

  async createRelation(
    projectId: string,
    body: { target_id: string; relation_type: string; metadata: Record<string, string>; valid_from: string },
  ): Promise<void> {
    const answer = await this.call("POST", `/api/v1/projects/${projectId}/relations`, body);
    if (answer.status !== 201) throw this.refused("POST /api/v1/projects/{id}/relations", answer);
  }
}
