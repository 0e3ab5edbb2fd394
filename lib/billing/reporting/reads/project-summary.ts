import type { Sql } from "postgres";
import { HistoryTooLongError } from "../../../foundation/errors/svc-error.ts";
import { instantFromMs, msOf } from "../../../foundation/time/instant.ts";
import { categoryOf } from "../../events/category.ts";
import type { PayloadEnvelope } from "../../events/event.ts";
import type { HistoryEvent } from "../../history/event-order.ts";
import { pgInstant } from "../database.ts";
import type { Project } from "../registry/projects.ts";
import { heldTime } from "./ownership-minutes.ts";

/**
 * Events one resource's history may hold for the unpaginated per-resource reads (the summary, the
 * history read); beyond it they answer `history_too_long`. A resource changes a few times a month, so
 * ten thousand events is decades of history; a longer one is a producer fault worth an operator's look.
 */
export const maxHistoryEvents = 10_000;

interface TypeSummary {
  resource_type: string;
  created: number;
  deleted: number;
  /** Minutes the project held live resources of the type inside the window, to the millisecond. */
  minutes: number;
  minutes_by_state: Record<string, number>;
  active_now: number;
}

export interface ProjectSummary {
  project: Pick<Project, "id" | "platform" | "cloud" | "external_id">;
  from: string;
  to: string;
  resource_types: TypeSummary[];
}

const minutesOf = (ms: number) => Math.round(ms / 60) / 1000;

interface Row {
  resource_type: string;
  resource_id: string;
  event_id: string;
  timestamp: string;
  event_type: string;
  project_id: string;
  payload: PayloadEnvelope;
}

/**
 * The summary of a project over [from, to) (docs/reporting-api.md#project-summary): per resource type, `created` and `deleted` from
 * the project's own events in the window (distinct resources, so a transfer moves neither and a
 * repeated fact such as a reconciliation's `sync.create` counts once), minutes from the folded histories of every resource the project ever
 * held before `to`, and `active_now` from the projection. `from >= to` gives zeros. All reads run in
 * one repeatable-read snapshot, so the numbers belong together.
 */
export async function projectSummary(
  sql: Sql,
  project: Project,
  window: { from: string; to: string },
): Promise<ProjectSummary> {
  const from = instantFromMs(msOf(window.from));
  const to = instantFromMs(msOf(window.to));
  const empty = from >= to;
  const result = await sql.begin("isolation level repeatable read read only", async (tx) => {
    const [clock] = await tx<{ now: string }[]>`select now()::text as now`;
    const now = pgInstant(clock?.now ?? "");
    const active = await tx<{ resource_type: string; n: number }[]>`
      select resource_type, count(*)::int as n from current_resources
      where cloud = ${project.cloud} and project_id = ${project.external_id} and deleted_at is null
      group by resource_type`;
    if (empty) return { active, created: new Map(), deleted: new Map(), held: new Map() };
    // Every resource the project held at some point before `to`: an interval of the project opens at
    // one of the project's own events.
    const rows = await tx<Row[]>`
      with held as (
        select distinct resource_type, resource_id from events
        where cloud = ${project.cloud} and project_id = ${project.external_id} and timestamp < ${to}::timestamptz
      )
      select e.resource_type, e.resource_id, e.event_id, e.timestamp::text, e.event_type, e.project_id,
        e.payload - 'provider' as payload
      from events e join held using (resource_type, resource_id)
      where e.cloud = ${project.cloud} and e.timestamp < ${to}::timestamptz`;
    const histories = new Map<string, { resource_type: string; events: HistoryEvent[] }>();
    // created and deleted come from the project's own events in the window, with the one category rule.
    const created = new Map<string, Set<string>>();
    const deleted = new Map<string, Set<string>>();
    for (const row of rows) {
      const at = pgInstant(row.timestamp);
      if (row.project_id === project.external_id && at >= from) {
        const category = categoryOf(row.event_type);
        const tally = category === "create" ? created : category === "delete" ? deleted : null;
        if (tally !== null) {
          const ids = tally.get(row.resource_type) ?? new Set<string>();
          ids.add(row.resource_id);
          tally.set(row.resource_type, ids);
        }
      }
      const k = JSON.stringify([row.resource_type, row.resource_id]);
      let h = histories.get(k);
      if (h === undefined) {
        h = { resource_type: row.resource_type, events: [] };
        histories.set(k, h);
      }
      if (h.events.length === maxHistoryEvents) {
        throw new HistoryTooLongError(
          `resource ${row.resource_id} has more than ${maxHistoryEvents} events; the summary folds each history whole`,
        );
      }
      h.events.push({
        event_id: row.event_id,
        timestamp: at,
        event_type: row.event_type,
        project_id: row.project_id,
        payload: row.payload,
      });
    }
    const until = instantFromMs(Math.min(msOf(to), msOf(now)));
    const held =
      from < until ? heldTime(histories.values(), project.external_id, { from, to: until }) : new Map();
    return { active, created, deleted, held };
  });
  const types = new Set<string>([
    ...result.active.map((r) => r.resource_type),
    ...result.created.keys(),
    ...result.deleted.keys(),
    ...result.held.keys(),
  ]);
  return {
    project: {
      id: project.id,
      platform: project.platform,
      cloud: project.cloud,
      external_id: project.external_id,
    },
    from,
    to,
    resource_types: [...types].sort().map((resource_type) => {
      const held = result.held.get(resource_type);
      return {
        resource_type,
        created: result.created.get(resource_type)?.size ?? 0,
        deleted: result.deleted.get(resource_type)?.size ?? 0,
        minutes: minutesOf(held?.ms ?? 0),
        minutes_by_state: Object.fromEntries(
          [...(held?.byState ?? new Map<string, number>())]
            .sort(([a], [b]) => (a < b ? -1 : 1))
            .map(([s, ms]) => [s, minutesOf(ms)]),
        ),
        active_now: result.active.find((a) => a.resource_type === resource_type)?.n ?? 0,
      };
    }),
  };
}
