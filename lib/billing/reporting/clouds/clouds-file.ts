import { readFileSync } from "node:fs";
import { parse } from "yaml";
import type { JsonObject } from "../../../foundation/json/json-value.ts";
import type { AdapterRegistry, CloudConfig, PlatformAdapter } from "./adapter-registry.ts";

/** The clouds file could not be used; the message says which cloud and what is wrong. */
export class CloudsFileError extends Error {
  constructor(message: string, options: { cause?: unknown } = {}) {
    super(message, options);
    this.name = "CloudsFileError";
  }
}

export interface Cloud {
  config: CloudConfig;
  adapter: PlatformAdapter;
}

const namePattern = /^[A-Za-z0-9][A-Za-z0-9._-]{0,511}$/;

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * Reads the clouds file (`SVC_REPORTING_CLOUDS_CONFIG`) once, at startup:
 *
 * ```yaml
 * clouds:
 *   cloud-1:
 *     platform: platform_a
 *     adapter: platform_a
 *     # further members are the adapter's own options
 * ```
 *
 * Each cloud's adapter must be registered and observe the platform the cloud declares; every problem is
 * collected and thrown at once, so the process exits before listening. No path means no clouds.
 */
export function loadClouds(path: string | undefined, registry: AdapterRegistry): Map<string, Cloud> {
  const clouds = new Map<string, Cloud>();
  if (path === undefined) return clouds;
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (cause) {
    const code = (cause as NodeJS.ErrnoException).code ?? "unreadable";
    throw new CloudsFileError(`the clouds file cannot be read (${code}): ${path}`, { cause });
  }
  let document: unknown;
  try {
    document = parse(text);
  } catch (cause) {
    throw new CloudsFileError(`the clouds file is not valid YAML: ${path}`, { cause });
  }
  if (!isObject(document) || !isObject(document.clouds)) {
    throw new CloudsFileError(
      `the clouds file must hold a mapping \`clouds\` of cloud name to settings: ${path}`,
    );
  }
  const problems: string[] = [];
  for (const [name, raw] of Object.entries(document.clouds)) {
    if (!namePattern.test(name) || name === "meta" || name === "partner") {
      problems.push(`cloud ${JSON.stringify(name)}: not a usable cloud name`);
      continue;
    }
    if (!isObject(raw) || typeof raw.platform !== "string" || typeof raw.adapter !== "string") {
      problems.push(`cloud ${name}: needs string members platform and adapter`);
      continue;
    }
    const { platform, adapter, ...options } = raw;
    const factory = registry.get(adapter);
    if (!factory) {
      const known = registry.names();
      problems.push(
        `cloud ${name}: adapter ${adapter} is not registered (registered: ${known.length > 0 ? known.join(", ") : "none"})`,
      );
      continue;
    }
    if (factory.platform !== platform) {
      problems.push(
        `cloud ${name}: adapter ${adapter} observes platform ${factory.platform}, not ${platform}`,
      );
      continue;
    }
    const config: CloudConfig = {
      name,
      platform,
      adapter,
      options: JSON.parse(JSON.stringify(options)) as JsonObject,
    };
    try {
      clouds.set(name, { config, adapter: factory.create(config) });
    } catch (cause) {
      problems.push(
        `cloud ${name}: ${cause instanceof Error ? cause.message : "the adapter refused its options"}`,
      );
    }
  }
  if (problems.length > 0) throw new CloudsFileError(problems.join("; "));
  return clouds;
}
