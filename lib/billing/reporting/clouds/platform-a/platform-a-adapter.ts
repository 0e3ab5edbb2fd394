import type { JsonObject } from "../../../../foundation/json/json-value.ts";
import { earliestInstantMs, instantFromMs, msOf } from "../../../../foundation/time/instant.ts";
import { platformA } from "../../../events/event.ts";
import type { Observation, ObservedResource, ObserveRequest } from "../../sync/observation.ts";
import type { AdapterFactory, CloudConfig, PlatformAdapter } from "../adapter-registry.ts";
import { type PasswordCloud, readPasswordCloud } from "./clouds-yaml.ts";
import { authenticate, endpointOf, type PlatformSession } from "./keystone.ts";
import {
  deletedServer,
  type ListedFlavor,
  listedFlavor,
  observedFloatingIp,
  observedImage,
  observedLoadBalancer,
  observedServer,
  observedVolume,
  observedVolumeCopy,
  volumeTypeNames,
} from "./observed-resources.ts";
import { listAll, PlatformListingError } from "./openstack-listing.ts";

/** Where a run of the adapter reads clouds.yaml from (the server's environment and working directory). */
export interface PlatformAEnvironment {
  env: Readonly<Record<string, string | undefined>>;
  cwd: string;
}

/** How far back deleted servers are asked for: nova keeps them listable about that long (docs/reconciliation.md#what-a-run-corrects). */
const deletedWindowMs = 24 * 3_600_000;

/** cinder 3.18 lists a backup's owner (`os-backup-project-attr:project_id`), 3.0 does not. */
const backupMicroversion = { "OpenStack-API-Version": "volume 3.18" };

/** nova 2.47 embeds each server's flavor (name and figures), so a deleted flavor still sizes it. */
const computeMicroversion = { "OpenStack-API-Version": "compute 2.47" };

/** The services the adapter lists, by catalog type in preference order, and the types each books. */
const services = {
  compute: { types: ["compute"], books: ["instance"] },
  volume: {
    types: ["block-storage", "volumev3", "volume"],
    books: ["volume", "volume_snapshot", "volume_backup"],
  },
  network: { types: ["network"], books: ["floating_ip"] },
  image: { types: ["image"], books: ["image"] },
  loadBalancer: { types: ["load-balancer"], books: ["loadbalancer"] },
} as const;

type Service = keyof typeof services;

/** An endpoint without the version suffix the catalog may give it (neutron, glance, octavia URLs vary). */
const unversioned = (url: string) => url.replace(/\/v2(\.0)?$/, "");

/**
 * The `platform_a` adapter for one cloud: identity v3 password authentication from its clouds.yaml
 * entry (`clouds-yaml.ts`), the catalog, and one run's listings of servers (live, and deleted in the last
 * 24 hours), volumes, volume types, snapshots and backups, floating IPs, images and load balancers, every one followed
 * through its pages, read by `observed-resources.ts`. A listing answered 401 is asked again once after a
 * fresh authentication, since a token may expire or be revoked mid-run; any other refusal fails the
 * run. A service the catalog does not name is not listed: its type is not in the observation, so
 * nothing of that type is corrected (a cloud without octavia has no load balancers to lose).
 */
class PlatformAAdapter implements PlatformAdapter {
  readonly platform = platformA;
  readonly resourceTypes: readonly string[] = Object.values(services).flatMap((s) => s.books);

  constructor(private readonly cloud: PasswordCloud) {}

  async observe(request: ObserveRequest): Promise<Observation> {
    const { signal } = request;
    let session: Promise<PlatformSession> = authenticate(this.cloud, { signal });
    const first = await session;
    let reauthenticated = false;
    const list = async (
      url: string,
      key: string,
      options: { query?: Record<string, string>; headers?: Record<string, string>; limit?: number } = {},
    ): Promise<JsonObject[]> => {
      const once = async () => listAll({ url, key, token: (await session).token, signal, ...options });
      try {
        return await once();
      } catch (error) {
        if (!(error instanceof PlatformListingError) || error.status !== 401) throw error;
        // Parallel listings refused together share one fresh authentication, and a run asks only once.
        if (!reauthenticated) {
          reauthenticated = true;
          session = authenticate(this.cloud, { signal });
        }
        return await once();
      }
    };
    const where = { interface: this.cloud.interface, region: this.cloud.region };
    const endpoint = (service: Service) => endpointOf(first, services[service].types, where);
    const found = (Object.keys(services) as Service[]).filter((s) => endpoint(s) !== null);
    if (found.length === 0) {
      throw new PlatformListingError(
        `the catalog names none of compute, volume, network, image, load-balancer for interface ${where.interface}${where.region === null ? "" : ` in region ${where.region}`}`,
      );
    }

    // A run in the first day of year 0001 asks for every deletion there is, not for year 0000.
    const since = instantFromMs(Math.max(msOf(request.at) - deletedWindowMs, earliestInstantMs));
    const compute = endpoint("compute");
    const volume = endpoint("volume");
    const network = endpoint("network");
    const image = endpoint("image");
    const loadBalancer = endpoint("loadBalancer");
    const none = Promise.resolve([] as JsonObject[]);
    const allTenants = { all_tenants: "1" };
    const [servers, deleted, volumes, types, snapshots, backups, floatingIps, images, loadBalancers] =
      await Promise.all([
        compute === null
          ? none
          : list(`${compute}/servers/detail`, "servers", { query: allTenants, headers: computeMicroversion }),
        compute === null
          ? none
          : list(`${compute}/servers/detail`, "servers", {
              query: { ...allTenants, deleted: "true", "changes-since": since },
              headers: computeMicroversion,
            }),
        volume === null ? none : list(`${volume}/volumes/detail`, "volumes", { query: allTenants }),
        volume === null ? none : list(`${volume}/types`, "volume_types", { query: { is_public: "None" } }),
        volume === null ? none : list(`${volume}/snapshots/detail`, "snapshots", { query: allTenants }),
        volume === null
          ? none
          : list(`${volume}/backups/detail`, "backups", { query: allTenants, headers: backupMicroversion }),
        network === null
          ? none
          : list(`${unversioned(network)}/v2.0/floatingips`, "floatingips", { limit: 1000 }),
        image === null ? none : list(`${unversioned(image)}/v2/images`, "images", { limit: 1000 }),
        loadBalancer === null
          ? none
          : list(`${unversioned(loadBalancer)}/v2.0/lbaas/loadbalancers`, "loadbalancers"),
      ]);

    // Only an answer below 2.47 names flavors by id; the flavor listing is read for it alone.
    const flavors = new Map<string, ListedFlavor>();
    if (
      compute !== null &&
      servers.some((s) => typeof (s.flavor as JsonObject | null)?.original_name !== "string")
    ) {
      for (const doc of await list(`${compute}/flavors/detail`, "flavors", {
        query: { is_public: "None" },
      })) {
        const flavor = listedFlavor(doc);
        flavors.set(flavor.id, flavor);
      }
    }
    const names = volumeTypeNames(types);
    const typeIds = new Map(names.map((n) => [n.name, n.value]));
    const resources: ObservedResource[] = [
      ...servers.map((doc) => observedServer(doc, flavors)),
      ...volumes.map((doc) => observedVolume(doc, typeIds)),
      ...snapshots.map((doc) => observedVolumeCopy(doc, "volume_snapshot")),
      ...backups.map((doc) => observedVolumeCopy(doc, "volume_backup")),
      ...floatingIps.map(observedFloatingIp),
      ...images.map(observedImage),
      ...loadBalancers.flatMap((doc) => observedLoadBalancer(doc) ?? []),
    ];
    return {
      resource_types: found.flatMap((s) => services[s].books),
      resources,
      deletions: deleted.flatMap((doc) => deletedServer(doc) ?? []),
      ...(volume === null ? {} : { size_names: names }),
    };
  }
}

const optionNames = ["os_cloud"];

/**
 * The `platform_a` adapter factory. A cloud's one option, `os_cloud`, names its clouds.yaml entry (the
 * cloud's own name by default); the entry is read when the clouds file is loaded, so a missing file or
 * entry refuses the start, naming the cloud. Nothing is dialled until a run.
 */
export function platformAAdapterFactory(environment: PlatformAEnvironment): AdapterFactory {
  return {
    name: "platform_a",
    platform: platformA,
    create(cloud: CloudConfig): PlatformAdapter {
      const unknown = Object.keys(cloud.options).filter((k) => !optionNames.includes(k));
      if (unknown.length > 0) {
        throw new Error(`the platform_a adapter takes only os_cloud, not ${unknown.sort().join(", ")}`);
      }
      const entry = cloud.options.os_cloud ?? cloud.name;
      if (typeof entry !== "string" || entry === "") {
        throw new Error("os_cloud must name a clouds.yaml entry (a non-empty string)");
      }
      return new PlatformAAdapter(readPasswordCloud(entry, environment));
    },
  };
}
