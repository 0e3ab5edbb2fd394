import { describe, expect, test } from "bun:test";
import {
  deletedServer,
  listedFlavor,
  observedImage,
  observedLoadBalancer,
  observedServer,
  observedVolume,
} from "./observed-resources.ts";

const flavors = new Map([
  [
    "5",
    listedFlavor({
      id: "5",
      name: "c1.large",
      vcpus: 8,
      ram: 8192,
      disk: 40,
      "OS-FLV-EXT-DATA:ephemeral": 20,
    }),
  ],
]);

describe("listed documents read as the collector reads notifications", () => {
  test("a server below microversion 2.47 is sized from the flavor listing; an unknown flavor is deferred", () => {
    const server = {
      id: "s1",
      tenant_id: "p1",
      status: "SHUTOFF",
      "OS-EXT-STS:vm_state": "stopped",
      "OS-EXT-STS:task_state": null,
      flavor: { id: "5" },
      created: "2026-10-01T00:00:00Z",
      updated: "2026-10-02T03:04:05Z",
    };
    expect(observedServer(server, flavors)).toEqual({
      resource_type: "instance",
      resource_id: "s1",
      project_id: "p1",
      state: "shutoff",
      size: { vcpus: 8, ram_gb: 8, disk_gb: 60, flavor: "c1.large" },
      created_at: "2026-10-01T00:00:00.000Z",
      changed_at: "2026-10-02T03:04:05.000Z",
      in_transition: false,
      provider: {
        status: "SHUTOFF",
        "OS-EXT-STS:vm_state": "stopped",
        "OS-EXT-STS:task_state": null,
        created: "2026-10-01T00:00:00Z",
        updated: "2026-10-02T03:04:05Z",
      },
    });
    expect(observedServer({ ...server, flavor: { id: "gone" } }, flavors).in_transition).toBe(true);
    expect(observedServer({ ...server, "OS-EXT-STS:task_state": "powering-on" }, flavors).in_transition).toBe(
      true,
    );
  });

  test("a deleted server is dated at terminated_at (cinder-style microseconds read as UTC); a live one is no deletion", () => {
    const doc = {
      id: "s1",
      tenant_id: "p1",
      status: "DELETED",
      "OS-EXT-STS:vm_state": "deleted",
      "OS-SRV-USG:terminated_at": "2026-10-05T06:07:08.000000",
      updated: "2026-10-05T06:07:09Z",
    };
    expect(deletedServer(doc)).toEqual({
      resource_type: "instance",
      resource_id: "s1",
      project_id: "p1",
      deleted_at: "2026-10-05T06:07:08.000Z",
    });
    expect(deletedServer({ ...doc, "OS-EXT-STS:vm_state": "soft-delete" })).toBeNull();
  });

  test("a volume's type by id, by the id of its listed name, or __DEFAULT__; transitional statuses deferred", () => {
    const types = new Map([["ssd", "id-ssd"]]);
    const volume = { id: "v1", status: "in-use", size: 20, "os-vol-tenant-attr:tenant_id": "p1" };
    expect(observedVolume({ ...volume, volume_type: "ssd", volume_type_id: "id-x" }, types).size).toEqual({
      size_gb: 20,
      type: "id-x",
    });
    expect(observedVolume({ ...volume, volume_type: "ssd" }, types).size).toEqual({
      size_gb: 20,
      type: "id-ssd",
    });
    expect(observedVolume({ ...volume, volume_type: null }, types).size).toEqual({
      size_gb: 20,
      type: "__DEFAULT__",
    });
    expect(observedVolume({ ...volume, status: "extending" }, types).in_transition).toBe(true);
  });

  test("images in GiB of their bytes, 0 while queued; load balancers by listeners and pools", () => {
    expect(observedImage({ id: "i", owner: "p", status: "queued", size: null }).size).toEqual({ size_gb: 0 });
    expect(observedImage({ id: "i", owner: "p", status: "saving", size: 1024 ** 3 })).toMatchObject({
      state: "saving",
      size: { size_gb: 1 },
      in_transition: true,
    });
    const lb = {
      id: "l",
      project_id: "p",
      provisioning_status: "ACTIVE",
      listeners: [{ id: "a" }],
      pools: [],
    };
    expect(observedLoadBalancer(lb)).toMatchObject({ state: "active", size: { listeners: 1, pools: 0 } });
    expect(observedLoadBalancer({ ...lb, provisioning_status: "PENDING_UPDATE" })?.in_transition).toBe(true);
    expect(observedLoadBalancer({ ...lb, provisioning_status: "DELETED" })).toBeNull();
  });
});
