import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { AdapterRegistry } from "./adapter-registry.ts";
import { loadClouds } from "./clouds-file.ts";

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "svc-clouds-"));
});
afterAll(() => {
  rmSync(dir, { recursive: true });
});

function file(name: string, text: string): string {
  const p = join(dir, name);
  writeFileSync(p, text);
  return p;
}

// A registered adapter of the test's own making: the registry is what is under test, not an adapter.
const registry = new AdapterRegistry([
  {
    name: "recorder",
    platform: "platform_a",
    create: (cloud) => {
      if (cloud.options.region === "") throw new Error("region must not be empty");
      return {
        platform: "platform_a",
        resourceTypes: [],
        observe: async () => ({ resource_types: [], resources: [], deletions: [] }),
      };
    },
  },
]);

describe("loadClouds", () => {
  test("no file means no clouds", () => {
    expect(loadClouds(undefined, registry).size).toBe(0);
  });

  test("a cloud with a registered adapter of its platform loads, options passed through", () => {
    const clouds = loadClouds(
      file("ok.yaml", "clouds:\n  c1:\n    platform: platform_a\n    adapter: recorder\n    region: r1\n"),
      registry,
    );
    expect(clouds.get("c1")?.config).toEqual({
      name: "c1",
      platform: "platform_a",
      adapter: "recorder",
      options: { region: "r1" },
    });
  });

  test("every problem is refused at once, naming the cloud", () => {
    const p = file(
      "bad.yaml",
      [
        "clouds:",
        "  c1: {platform: platform_a, adapter: nope}",
        "  c2: {platform: platform_b, adapter: recorder}",
        "  meta: {platform: platform_a, adapter: recorder}",
        "  c3: {platform: platform_a}",
        "  c4: {platform: platform_a, adapter: recorder, region: ''}",
      ].join("\n"),
    );
    expect(() => loadClouds(p, registry)).toThrow(
      'cloud c1: adapter nope is not registered (registered: recorder); cloud c2: adapter recorder observes platform platform_a, not platform_b; cloud "meta": not a usable cloud name; cloud c3: needs string members platform and adapter; cloud c4: region must not be empty',
    );
    expect(() => loadClouds(join(dir, "missing.yaml"), registry)).toThrow(
      "the clouds file cannot be read (ENOENT)",
    );
    expect(() => loadClouds(file("y.yaml", "clouds: [a"), registry)).toThrow("not valid YAML");
    expect(() => loadClouds(file("z.yaml", "other: 1"), registry)).toThrow("must hold a mapping `clouds`");
    expect(() =>
      loadClouds(
        file("e.yaml", "clouds:\n  c1: {platform: platform_a, adapter: platform_a}\n"),
        new AdapterRegistry(),
      ),
    ).toThrow("adapter platform_a is not registered (registered: none)");
  });
});
