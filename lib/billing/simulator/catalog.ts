/**
 * The simulated cloud's fixed catalog: flavors and volume types are the same in every run, so a
 * pricing model and the fake platform API can name them (three volume types, ids identical in every
 * run: docs/simulator.md#fake-platform-api).
 */
export interface Flavor {
  id: string;
  name: string;
  vcpus: number;
  memory_mb: number;
  root_gb: number;
  ephemeral_gb: number;
}

export const flavors: readonly Flavor[] = [
  { id: "1", name: "m1.small", vcpus: 1, memory_mb: 2048, root_gb: 20, ephemeral_gb: 0 },
  { id: "2", name: "m1.medium", vcpus: 2, memory_mb: 4096, root_gb: 40, ephemeral_gb: 0 },
  { id: "3", name: "m1.large", vcpus: 4, memory_mb: 8192, root_gb: 80, ephemeral_gb: 0 },
  { id: "4", name: "m1.xlarge", vcpus: 8, memory_mb: 16384, root_gb: 160, ephemeral_gb: 0 },
  { id: "5", name: "c1.large", vcpus: 8, memory_mb: 8192, root_gb: 40, ephemeral_gb: 20 },
  { id: "6", name: "r1.large", vcpus: 4, memory_mb: 16384, root_gb: 40, ephemeral_gb: 0 },
];

const flavorsByName = new Map(flavors.map((f) => [f.name, f]));

export function flavorNamed(name: string): Flavor {
  const flavor = flavorsByName.get(name);
  if (flavor === undefined) throw new RangeError(`no flavor named ${name}`);
  return flavor;
}

interface VolumeType {
  id: string;
  name: string;
}

export const volumeTypes: readonly VolumeType[] = [
  { id: "5f3c2a8e-1b7d-4c1e-9a53-0d6f4b2e8c11", name: "ssd" },
  { id: "a1d9e4b2-6c3f-4f8a-b7e0-2c5d8f1a9b22", name: "hdd" },
  { id: "c7b2f5d1-8e4a-4d6b-a9c3-4e7f0b3d6c33", name: "standard" },
];

/**
 * octavia flavors a load balancer may be created with (by id, as octavia reports `flavor_id`); a load
 * balancer may also have none. Ids identical in every run, so a pricing model can name them.
 */
export const loadBalancerFlavors: readonly { id: string; name: string }[] = [
  { id: "7d3b1c9e-2f4a-4e6b-8c1d-5a9e0f3b2c44", name: "large" },
  { id: "2b8e4f1a-9c3d-4a7e-b5f2-8d1c6e0a3f55", name: "small" },
];

/** Simulated project limits (docs/simulator.md#inventory-endpoint), per tenant at any instant. */
export const projectLimits = { instances: 100, vcpus: 400, memory_mb: 819200 } as const;

/**
 * At most this many instances per tenant over the whole month: with the largest flavor (8 vcpus,
 * 16 GiB) even all of them alive at once stay inside the project limits, whatever the schedule.
 */
export const maxInstancesPerTenant = 40;

/** The image every simulated instance boots from (not itself a billed image of any tenant). */
export const bootImageId = "0b8a7e52-3f1c-4d2a-9e6b-7c4d1f0a5e90";

/** External network the floating addresses come from. */
export const publicNetworkId = "e3f5a1c7-9b2d-4e8f-a6c4-1d7b3f9e2a55";
