import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { cloudsYamlCandidates, identityEndpoint, readPasswordCloud } from "./clouds-yaml.ts";

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "svc-clouds-yaml-"));
});
afterAll(() => {
  rmSync(dir, { recursive: true });
});

const entry = [
  "clouds:",
  "  prod:",
  "    auth:",
  "      auth_url: http://keystone.example:5000",
  "      username: billing",
  "      password: s3cret",
  "      project_name: admin",
  "      user_domain_name: Users",
  "      project_domain_id: default",
  "    region_name: RegionOne",
  "    interface: internal",
  "",
].join("\n");

describe("cloudsYamlCandidates", () => {
  test("OS_CLIENT_CONFIG_FILE, when set, is the only location", () => {
    expect(cloudsYamlCandidates({ OS_CLIENT_CONFIG_FILE: "/x/c.yaml", HOME: "/home/u" }, "/work")).toEqual([
      "/x/c.yaml",
    ]);
  });

  test("otherwise the working directory, the user's config, then the system's", () => {
    expect(cloudsYamlCandidates({ HOME: "/home/u" }, "/work")).toEqual([
      "/work/clouds.yaml",
      "/work/clouds.yml",
      "/work/clouds.json",
      "/home/u/.config/openstack/clouds.yaml",
      "/home/u/.config/openstack/clouds.yml",
      "/home/u/.config/openstack/clouds.json",
      "/etc/openstack/clouds.yaml",
      "/etc/openstack/clouds.yml",
      "/etc/openstack/clouds.json",
    ]);
  });
});

describe("readPasswordCloud", () => {
  test("a standard entry, found in the working directory", () => {
    const cwd = join(dir, "cwd");
    mkdirSync(cwd, { recursive: true });
    writeFileSync(join(cwd, "clouds.yaml"), entry);
    const cloud = readPasswordCloud("prod", { env: { HOME: join(dir, "nohome") }, cwd });
    expect({ ...cloud, password: cloud.password.reveal() }).toEqual({
      authUrl: "http://keystone.example:5000/v3",
      user: { name: "billing", domain: { name: "Users" } },
      password: "s3cret",
      project: { name: "admin", domain: { id: "default" } },
      region: "RegionOne",
      interface: "internal",
      verify: true,
      cacert: null,
    });
    expect(JSON.stringify(cloud)).not.toContain("s3cret");
  });

  test("OS_CLIENT_CONFIG_FILE alone: a clouds.yaml in the working directory is not read", () => {
    const cwd = join(dir, "cwd2");
    mkdirSync(cwd, { recursive: true });
    writeFileSync(join(cwd, "clouds.yaml"), entry);
    const named = join(dir, "named.yaml");
    writeFileSync(named, entry.replace("prod:", "other:"));
    expect(() => readPasswordCloud("prod", { env: { OS_CLIENT_CONFIG_FILE: named }, cwd })).toThrow(
      `${named} has no cloud entry "prod"`,
    );
    expect(() =>
      readPasswordCloud("prod", { env: { OS_CLIENT_CONFIG_FILE: join(dir, "missing.yaml") }, cwd }),
    ).toThrow("no clouds.yaml found");
  });

  test("refusals name what is missing and never the password", () => {
    const p = join(dir, "bad.yaml");
    writeFileSync(p, "clouds:\n  c:\n    auth: {password: s3cret}\n    interface: sideways\n");
    let message = "";
    try {
      readPasswordCloud("c", { env: { OS_CLIENT_CONFIG_FILE: p }, cwd: dir });
    } catch (error) {
      message = (error as Error).message;
    }
    expect(message).toBe(
      `${p}, cloud c: needs auth.auth_url (an http or https URL), auth.username or auth.user_id, auth.project_name or auth.project_id, interface (public, internal or admin)`,
    );
    writeFileSync(p, "clouds:\n  c:\n    auth_type: v3applicationcredential\n");
    expect(() => readPasswordCloud("c", { env: { OS_CLIENT_CONFIG_FILE: p }, cwd: dir })).toThrow(
      "auth_type v3applicationcredential is not supported (password only)",
    );
  });

  test("identity endpoints with or without /v3", () => {
    expect(identityEndpoint("http://h/identity")).toBe("http://h/identity/v3");
    expect(identityEndpoint("http://h/v3/")).toBe("http://h/v3");
  });
});
