import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { type Cloud, loadClouds } from "../../lib/billing/reporting/clouds/clouds-file.ts";
import { registeredAdapters } from "../../lib/billing/reporting/clouds/registered-adapters.ts";
import { platformCredentials } from "../../lib/billing/simulator/platform-api/platform-api.ts";

/**
 * A clouds file (`SVC_REPORTING_CLOUDS_CONFIG`) naming each cloud with the `platform_a` adapter, and
 * the clouds.yaml (`OS_CLIENT_CONFIG_FILE`) whose entries authenticate against a fake platform API at
 * `url`, written into `dir`: what an operator writes, pointing at the simulator.
 */
export function writePlatformCloudFiles(
  dir: string,
  clouds: readonly { name: string; url: string }[],
): { cloudsConfig: string; cloudsYaml: string } {
  const cloudsConfig = join(dir, "svc-clouds.yaml");
  const cloudsYaml = join(dir, "clouds.yaml");
  const c = platformCredentials;
  writeFileSync(
    cloudsConfig,
    [
      "clouds:",
      ...clouds.map(
        (k) => `  ${k.name}: {platform: platform_a, adapter: platform_a, os_cloud: sim-${k.name}}`,
      ),
      "",
    ].join("\n"),
  );
  writeFileSync(
    cloudsYaml,
    [
      "clouds:",
      ...clouds.flatMap((k) => [
        `  sim-${k.name}:`,
        "    auth:",
        `      auth_url: ${k.url}/v3`,
        `      username: ${c.user}`,
        `      password: ${c.password}`,
        `      project_name: ${c.project}`,
        `      user_domain_name: ${c.domain}`,
        `      project_domain_name: ${c.domain}`,
        "    region_name: RegionOne",
      ]),
      "",
    ].join("\n"),
  );
  return { cloudsConfig, cloudsYaml };
}

/** The clouds of `writePlatformCloudFiles`, loaded as the server loads them (its adapters, its refusals). */
export function loadPlatformClouds(
  dir: string,
  clouds: readonly { name: string; url: string }[],
): Map<string, Cloud> {
  const files = writePlatformCloudFiles(dir, clouds);
  return loadClouds(
    files.cloudsConfig,
    registeredAdapters({ env: { OS_CLIENT_CONFIG_FILE: files.cloudsYaml }, cwd: dir }),
  );
}
