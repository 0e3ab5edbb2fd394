import { Type } from "@sinclair/typebox";
import { Instant, Name } from "./common-schemas.ts";

/** The body of `POST /internal/sync/{cloud}`: `{}`, or the run's instant where the deployment allows it. */
export const SyncRequestSchema = Type.Object(
  {
    at: Type.Optional(
      Type.String({
        format: "date-time",
        description: "the run instant; only with SVC_REPORTING_SYNC_ALLOW_AT (simulated clouds), else 400",
      }),
    ),
  },
  { $id: "SyncRequest", additionalProperties: false },
);

export const syncCloudParams = Type.Object({ cloud: Name("the cloud, as the clouds file names it") });

const count = (description: string) => Type.Integer({ minimum: 0, description });

const typeCounts = {
  observed: count("live resources the platform listed"),
  unchanged: count("listed resources the projection already agreed with"),
  created: count("sync.create events written"),
  updated: count("sync.update events written"),
  deleted: count("sync.delete events written"),
  deferred: count("resources left alone: the platform shows them mid-operation"),
  settling: count("resources left alone: changed within the settle window"),
};

const SyncTypeCountsSchema = Type.Object(
  { resource_type: Name("a type the adapter lists whole"), ...typeCounts },
  { $id: "SyncTypeCounts", additionalProperties: false },
);

export const SyncResultSchema = Type.Object(
  {
    run_id: Type.String({ format: "uuid", description: "the run's sync_runs row" }),
    cloud: Name("the cloud"),
    status: Type.Literal("succeeded"),
    at: Instant,
    started_at: Instant,
    finished_at: Instant,
    ...typeCounts,
    accepted: count("events ingest stored"),
    duplicates: count("events ingest already held (a repeated run at one instant)"),
    rejected: count("events ingest refused; they are in the dead letter"),
    size_names: Type.Union([Type.Integer({ minimum: 0 }), Type.Null()], {
      description: "size-name rows stored for the cloud; null when the adapter lists none",
    }),
    resource_types: Type.Array(SyncTypeCountsSchema),
  },
  { $id: "SyncResult", additionalProperties: false },
);
