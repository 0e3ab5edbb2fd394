import { compare } from "../../foundation/collections/compare.ts";
import type { JsonObject } from "../../foundation/json/json-value.ts";
import { Prng } from "../../foundation/random/prng.ts";
import type { Period } from "../../foundation/time/period.ts";
import { type Flavor, flavors, loadBalancerFlavors, maxInstancesPerTenant, volumeTypes } from "./catalog.ts";
import type { ExtraType } from "./extra-types.ts";
import type { Month, MonthScale, SimResource, Tenant, Truth } from "./month.ts";
import { ResourceBuilder } from "./resource-builder.ts";
import { VolumeCopies } from "./volume-copies.ts";

const second = 1000;
const minute = 60 * second;
const hour = 60 * minute;
const day = 24 * hour;

export interface MonthInput {
  seed: number;
  period: Period;
  cloud: string;
  scale: MonthScale;
  /** Resource types beyond the default month's (decision 288); none when absent. */
  extraTypes?: readonly ExtraType[];
}

type InstanceKind = "steady" | "short-lived" | "resizing" | "shelving" | "power-cycling";

/** Weights of the instance workloads of a classic tenant. */
const classicKinds: readonly InstanceKind[] = [
  ...Array<InstanceKind>(7).fill("steady"),
  ...Array<InstanceKind>(4).fill("short-lived"),
  ...Array<InstanceKind>(3).fill("resizing"),
  ...Array<InstanceKind>(2).fill("shelving"),
  ...Array<InstanceKind>(3).fill("power-cycling"),
];

const volumeSizes: readonly number[] = [10, 20, 50, 100, 200, 500];

export function instanceSize(flavor: Flavor): JsonObject {
  return {
    vcpus: flavor.vcpus,
    ram_gb: flavor.memory_mb / 1024,
    disk_gb: flavor.root_gb + flavor.ephemeral_gb,
    flavor: flavor.name,
  };
}

/**
 * The seeded month: a pure function of seed, period, cloud and scale. Every booked transition lies
 * inside the month, except the creation of pre-existing resources (one in three classic-tenant
 * instances, with their volumes and floating address), which lies before it.
 */
export function generateMonth(input: MonthInput): Month {
  const source = monthSource(input);
  const resources = [...source.resources()];
  resources.sort((a, b) =>
    a.resource_type === b.resource_type
      ? compare(a.resource_id, b.resource_id)
      : compare(a.resource_type, b.resource_type),
  );
  return { seed: input.seed, cloud: input.cloud, period: input.period, tenants: source.tenants, resources };
}

/** The month as it is generated: its tenants, and its resources one tenant at a time. */
export interface MonthSource {
  tenants: Tenant[];
  /**
   * The resources in the order they are drawn (tenant by tenant), not sorted: a month of any size
   * is streamed through this without ever being held whole. Iterate it once.
   */
  resources(): Iterable<SimResource>;
}

/** The same month as `generateMonth`, resource by resource, for the streaming file mode (decision 245). */
export function monthSource(input: MonthInput): MonthSource {
  const g = new MonthGenerator(input);
  const tenants = g.tenants();
  return { tenants, resources: () => g.resources(tenants) };
}

/**
 * The tenants of the month `input` generates, without the rest of it: they are the generator's first
 * draws, so registration can run before a large month is generated.
 */
export function generateTenants(input: MonthInput): Tenant[] {
  return new MonthGenerator(input).tenants();
}

class MonthGenerator {
  private readonly rng: Prng;
  private readonly from: number;
  private readonly to: number;
  /** The resources of the tenant being drawn. */
  private batch: SimResource[] = [];
  /** The volumes' snapshots and backups, from a stream of their own; null when the month has none. */
  private readonly copies: VolumeCopies | null;

  /** Load balancer flavors, drawn apart from `rng` (decision 296). */
  private readonly lbFlavors: Prng;

  constructor(private readonly input: MonthInput) {
    this.rng = new Prng(input.seed, `month:${input.period.name}:${input.cloud}`);
    this.lbFlavors = new Prng(input.seed, `loadbalancer-flavor:${input.period.name}:${input.cloud}`);
    const extras = input.extraTypes ?? [];
    this.copies = extras.length === 0 ? null : new VolumeCopies(input, extras);
    this.from = Date.parse(input.period.from);
    this.to = Date.parse(input.period.to);
  }

  *resources(tenants: readonly Tenant[]): Generator<SimResource> {
    const classic = tenants.filter((t) => t.kind === "classic");
    for (let i = 0; i < classic.length; i++) {
      this.classicTenant(classic[i] as Tenant, i, classic);
      yield* this.drain();
    }
    for (const tenant of tenants.filter((t) => t.kind === "infrastructure")) {
      this.infrastructureTenant(tenant);
      yield* this.drain();
    }
  }

  /** The resources of the tenant just drawn, with their volumes' copies after them. */
  private drain(): SimResource[] {
    const drawn = this.batch;
    this.batch = [];
    return this.copies === null ? drawn : [...drawn, ...this.copies.of(drawn)];
  }

  tenants(): Tenant[] {
    const out: Tenant[] = [];
    const width = String(this.input.scale.tenants).length;
    for (let i = 1; i <= this.input.scale.tenants; i++) {
      out.push({
        project_id: this.rng.hex(32),
        name: `tenant-${String(i).padStart(width, "0")}`,
        user_id: this.rng.hex(32),
        kind: "classic",
        cluster_manager: null,
      });
    }
    for (const manager of ["alpha", "beta"]) {
      out.push({
        project_id: this.rng.hex(32),
        name: `${manager}-infra`,
        user_id: this.rng.hex(32),
        kind: "infrastructure",
        cluster_manager: manager,
      });
    }
    return out;
  }

  private classicTenant(tenant: Tenant, index: number, classic: readonly Tenant[]): void {
    const instances = Math.min(this.rng.int(4, 14), maxInstancesPerTenant);
    for (let i = 0; i < instances; i++) {
      const kind = this.rng.pick(classicKinds);
      const preExisting = this.rng.chance(1 / 3);
      const flavor = this.rng.pick(flavors);
      const volumes = this.rng.pick([0, 0, 1, 1, 1, 2]);
      const address = this.rng.chance(0.4);
      this.instanceWorkload(tenant, kind, flavor, preExisting, volumes, address);
    }
    if (classic.length > 1 && this.rng.chance(0.3)) {
      this.transferredVolume(tenant, this.rng.pickExcept(classic, index));
    }
    const images = this.rng.int(0, 2);
    for (let i = 0; i < images; i++) this.image(tenant);
    if (this.rng.chance(0.25)) this.loadBalancer(tenant, "load-balancer", false);
  }

  private infrastructureTenant(tenant: Tenant): void {
    // Its nodes, then the nodes its autoscaler starts and stops: a count each, then a flavor per node.
    const groups = [
      { count: [6, 14], kind: "steady", flavors: flavors.slice(2, 4), workload: "cluster-node" },
      { count: [4, 12], kind: "short-lived", flavors: flavors.slice(1, 3), workload: "cluster-autoscale" },
    ] as const;
    for (const group of groups) {
      const nodes = this.rng.int(group.count[0], group.count[1]);
      for (let i = 0; i < nodes; i++)
        this.instanceWorkload(
          tenant,
          group.kind,
          this.rng.pick(group.flavors),
          false,
          1,
          false,
          group.workload,
        );
    }
    const ingresses = this.rng.int(1, 2);
    for (let i = 0; i < ingresses; i++) this.loadBalancer(tenant, "cluster-ingress", true);
  }

  /** An instance with its volumes and floating address; returns nothing, the resources are collected. */
  private instanceWorkload(
    tenant: Tenant,
    kind: InstanceKind,
    startFlavor: Flavor,
    preExisting: boolean,
    volumeCount: number,
    withAddress: boolean,
    workload: string = kind,
  ): void {
    const rng = this.rng;
    const id = rng.uuid();
    const b = new ResourceBuilder(rng, "instance", id, workload, preExisting, {
      name: `${workload}-${id.slice(0, 8)}`,
      user_id: tenant.user_id,
      host: `compute-${String(rng.int(1, 24)).padStart(2, "0")}`,
      flavor_id: startFlavor.id,
    });
    const truth = (flavor: Flavor, state: string): Truth => ({
      state,
      size: instanceSize(flavor),
      project_id: tenant.project_id,
    });

    let start: number;
    let end: number | null;
    if (preExisting) {
      start = this.from - rng.int(hour, 60 * day);
      end = kind === "short-lived" ? this.from + rng.int(hour, 3 * day) : null;
    } else if (workload === "cluster-node") {
      start = this.from + rng.int(10 * minute, 2 * day);
      end = null;
    } else {
      start = this.from + rng.int(10 * minute, this.to - this.from - 6 * hour);
      end = kind === "short-lived" ? start + rng.int(30 * minute, 3 * day) : null;
    }
    if (kind === "steady" && end === null && workload === "steady" && rng.chance(0.2)) {
      end = Math.max(start, this.from) + rng.int(day, 20 * day);
    }
    if (end !== null && end >= this.to - minute) end = null;

    b.noise(start - rng.int(20 * second, 90 * second), "compute.instance.create.start");
    b.book(start, "compute.instance.create.end", truth(startFlavor, "active"));

    // Middle transitions happen inside the month, clear of the create and the delete.
    const lo = Math.max(start, this.from) + 10 * minute;
    const hi = (end ?? this.to) - 10 * minute;
    let flavor = startFlavor;
    if (hi - lo > 2 * hour) {
      if (kind === "resizing") {
        const at = rng.int(lo, hi - hour);
        const others = flavors.filter((f) => f !== flavor);
        const target = rng.pick(others);
        b.noise(at - rng.int(5 * second, 60 * second), "compute.instance.resize.end");
        b.book(at, "compute.instance.finish_resize.end", truth(target, "active"));
        const settle = Math.min(at + rng.int(5 * minute, 6 * hour), hi);
        if (rng.chance(0.3)) {
          b.book(settle, "compute.instance.resize.revert.end", truth(flavor, "active"));
        } else {
          b.book(settle, "compute.instance.resize.confirm.end", truth(target, "active"));
          flavor = target;
        }
      } else if (kind === "shelving") {
        const at = rng.int(lo, hi - hour);
        b.book(at, "compute.instance.shelve.end", truth(flavor, "shelved"));
        const offload = at + rng.int(minute, 15 * minute);
        b.book(offload, "compute.instance.shelve_offload.end", truth(flavor, "shelved_offloaded"));
        if (rng.chance(0.7) && hi - offload > 2 * hour) {
          b.book(rng.int(offload + hour, hi), "compute.instance.unshelve.end", truth(flavor, "active"));
        }
      } else if (kind === "power-cycling") {
        const cycles = rng.int(1, 4);
        const instants = Array.from({ length: cycles * 2 }, () => rng.int(lo, hi)).sort((x, y) => x - y);
        const keepOff = rng.chance(0.2);
        instants.forEach((at, i) => {
          if (i % 2 === 0) b.book(at, "compute.instance.power_off.end", truth(flavor, "shutoff"));
          else if (!(keepOff && i === instants.length - 1)) {
            b.book(at, "compute.instance.power_on.end", truth(flavor, "active"));
          }
        });
      }
    }
    if (end !== null) {
      b.noise(end - rng.int(2 * second, 20 * second), "compute.instance.delete.start");
      b.book(end, "compute.instance.delete.end", null);
    }
    this.audits(b, start, end);
    const traffic =
      workload === "cluster-node" || workload === "cluster-autoscale"
        ? { egress_rate: rng.int(100_000, 5_000_000), ingress_rate: rng.int(100_000, 5_000_000) }
        : { egress_rate: rng.int(1_000, 2_000_000), ingress_rate: rng.int(1_000, 1_000_000) };
    this.batch.push(b.build(traffic));

    for (let v = 0; v < volumeCount; v++) this.attachedVolume(tenant, id, workload, preExisting, start, end);
    if (withAddress) this.floatingIp(tenant, workload, preExisting, start, end, id);
  }

  /**
   * nova's daily usage audit: shortly after each midnight, `compute.instance.exists` for every instance
   * alive then. Only audits inside the month are emitted; each states the instance as it stands.
   */
  private audits(b: ResourceBuilder, start: number, end: number | null): void {
    for (let midnight = this.from; midnight < this.to; midnight += day) {
      const at = midnight + this.rng.int(minute, 30 * minute);
      if (at <= start || (end !== null && at >= end) || at >= this.to) continue;
      const truth = b.truthAt(at);
      if (truth !== null) b.book(at, "compute.instance.exists", truth);
    }
  }

  private attachedVolume(
    tenant: Tenant,
    instanceId: string,
    workload: string,
    preExisting: boolean,
    instanceStart: number,
    instanceEnd: number | null,
  ): void {
    const rng = this.rng;
    const id = rng.uuid();
    let type = workload.startsWith("cluster") ? volumeTypes[0] : rng.pick(volumeTypes);
    let size = rng.pick(volumeSizes);
    const b = new ResourceBuilder(rng, "volume", id, workload, preExisting, {
      name: `vol-${id.slice(0, 8)}`,
      user_id: tenant.user_id,
      instance_id: instanceId,
    });
    const truth = (state: string): Truth => ({
      state,
      size: { size_gb: size, type: type?.id ?? "" },
      project_id: tenant.project_id,
    });
    const created = instanceStart + rng.int(20 * second, 5 * minute);
    b.book(created, "volume.create.end", truth("available"));
    const attached = created + rng.int(5 * second, minute);
    b.book(attached, "volume.attach.end", truth("in-use"));
    const lo = Math.max(attached, this.from) + 10 * minute;
    const hi = (instanceEnd ?? this.to) - 10 * minute;
    if (hi - lo > 2 * hour) {
      if (rng.chance(0.2)) {
        size += rng.pick([10, 20, 50, 100]);
        b.book(rng.int(lo, (lo + hi) / 2), "volume.resize.end", truth("in-use"));
      }
      if (rng.chance(0.1)) {
        const others = volumeTypes.filter((t) => t !== type);
        type = rng.pick(others);
        b.book(rng.int((lo + hi) / 2, hi), "volume.retype", truth("in-use"));
      }
    }
    if (instanceEnd !== null) {
      b.book(instanceEnd - rng.int(5 * second, minute), "volume.detach.end", truth("available"));
      const deleted = instanceEnd + rng.int(30 * second, 10 * minute);
      if (rng.chance(0.8) && deleted < this.to - minute) b.book(deleted, "volume.delete.end", null);
    }
    this.batch.push(b.build());
  }

  /** A detached volume handed from one classic tenant to another (cinder's volume transfer). */
  private transferredVolume(giver: Tenant, taker: Tenant): void {
    const rng = this.rng;
    const id = rng.uuid();
    const type = rng.pick(volumeTypes);
    const size = rng.pick(volumeSizes);
    const b = new ResourceBuilder(rng, "volume", id, "transferred", false, {
      name: `handover-${id.slice(0, 8)}`,
      user_id: giver.user_id,
      instance_id: "",
    });
    const truth = (owner: Tenant): Truth => ({
      state: "available",
      size: { size_gb: size, type: type.id },
      project_id: owner.project_id,
    });
    const created = this.from + rng.int(10 * minute, 15 * day);
    b.book(created, "volume.create.end", truth(giver));
    const accepted = created + rng.int(hour, 10 * day);
    b.book(accepted, "volume.transfer.accept.end", truth(taker));
    const deleted = accepted + rng.int(hour, 10 * day);
    if (rng.chance(0.5) && deleted < this.to - minute) b.book(deleted, "volume.delete.end", null);
    this.batch.push(b.build());
  }

  private floatingIp(
    tenant: Tenant,
    workload: string,
    preExisting: boolean,
    ownerStart: number,
    ownerEnd: number | null,
    portOwner: string,
  ): void {
    const rng = this.rng;
    const id = rng.uuid();
    const b = new ResourceBuilder(rng, "floating_ip", id, workload, preExisting, {
      name: id,
      user_id: tenant.user_id,
      address: `203.0.${rng.int(113, 127)}.${rng.int(2, 254)}`,
      port_id: rng.uuid(),
      router_id: rng.uuid(),
      fixed_ip_address: `10.${rng.int(0, 255)}.${rng.int(0, 255)}.${rng.int(2, 254)}`,
      port_owner: portOwner,
    });
    const created = ownerStart + rng.int(30 * second, 10 * minute);
    b.book(created, "floatingip.create.end", {
      state: "active",
      size: { ip_version: 4 },
      project_id: tenant.project_id,
    });
    b.noise(created + rng.int(2 * second, 10 * second), "floatingip.update.end");
    if (ownerEnd !== null) {
      const deleted = ownerEnd + rng.int(second, minute);
      if (deleted < this.to - minute) b.book(deleted, "floatingip.delete.end", null);
    }
    this.batch.push(b.build());
  }

  private image(tenant: Tenant): void {
    const rng = this.rng;
    const id = rng.uuid();
    const mib = rng.int(200, 20_000);
    const b = new ResourceBuilder(rng, "image", id, "image", false, {
      name: `image-${id.slice(0, 8)}`,
      user_id: tenant.user_id,
      size_bytes: mib * 1024 * 1024,
      disk_format: rng.pick(["qcow2", "raw"]),
    });
    const truth = (state: string, sizeGb: number): Truth => ({
      state,
      size: { size_gb: sizeGb, disk_format: String(b.attributes.disk_format) },
      project_id: tenant.project_id,
    });
    const created = this.from + rng.int(10 * minute, this.to - this.from - 2 * day);
    b.book(created, "image.create", truth("queued", 0));
    const uploaded = created + rng.int(30 * second, 15 * minute);
    b.book(uploaded, "image.upload", truth("active", mib / 1024));
    b.book(uploaded + rng.int(second, 5 * second), "image.activate", truth("active", mib / 1024));
    const deleted = uploaded + rng.int(hour, 20 * day);
    if (rng.chance(0.3) && deleted < this.to - minute) b.book(deleted, "image.delete", null);
    this.batch.push(b.build());
  }

  private loadBalancer(tenant: Tenant, workload: string, withAddress: boolean): void {
    const rng = this.rng;
    const id = rng.uuid();
    const b = new ResourceBuilder(rng, "loadbalancer", id, workload, false, {
      name: `lb-${id.slice(0, 8)}`,
      user_id: tenant.user_id,
      vip_address: `10.${rng.int(0, 255)}.${rng.int(0, 255)}.${rng.int(2, 254)}`,
      vip_subnet_id: rng.uuid(),
      vip_port_id: rng.uuid(),
    });
    const created =
      workload === "cluster-ingress"
        ? this.from + rng.int(10 * minute, 2 * day)
        : this.from + rng.int(10 * minute, this.to - this.from - 2 * day);
    // Drawn from a stream of its own, so that the month's other draws are those of before (decision 296).
    const flavor = this.lbFlavors.pick([...loadBalancerFlavors, null]);
    b.book(created, "octavia.loadbalancer.create.end", {
      state: "active",
      size: flavor === null ? { listeners: 0, pools: 0 } : { listeners: 0, pools: 0, flavor: flavor.id },
      project_id: tenant.project_id,
    });
    let end: number | null = created + rng.int(day, 20 * day);
    if (workload === "cluster-ingress" || !rng.chance(0.4) || end >= this.to - hour) end = null;
    if (end !== null) b.book(end, "octavia.loadbalancer.delete.end", null);
    this.batch.push(b.build());
    if (withAddress) this.floatingIp(tenant, workload, false, created, end, id);
  }
}
