import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { parse } from "yaml";
import { Secret } from "../../../../foundation/config/secret.ts";

/** A clouds.yaml that cannot be used; the message names the file or entry, never a password. */
export class CloudsYamlError extends Error {
  constructor(message: string, options: { cause?: unknown } = {}) {
    super(message, options);
    this.name = "CloudsYamlError";
  }
}

/** One clouds.yaml entry, as identity v3 password authentication needs it. */
export interface PasswordCloud {
  /** The identity endpoint, ending in `/v3`. */
  authUrl: string;
  /** The user by name (with its domain) or by id. */
  user: { name: string; domain: { name?: string; id?: string } } | { id: string };
  password: Secret;
  /** The project the token is scoped to, by name (with its domain) or by id. */
  project: { name: string; domain: { name?: string; id?: string } } | { id: string };
  region: string | null;
  /** The catalog interface: public (default), internal or admin. */
  interface: "public" | "internal" | "admin";
  /** False skips TLS verification (`verify: false`); a CA bundle path from `cacert`. */
  verify: boolean;
  cacert: string | null;
}

const fileNames = ["clouds.yaml", "clouds.yml", "clouds.json"];

/**
 * Where clouds.yaml is looked for, in order, as the OpenStack client libraries look: only
 * `OS_CLIENT_CONFIG_FILE` when it is set; otherwise the working directory, the user's
 * `~/.config/openstack`, then `/etc/openstack`.
 */
export function cloudsYamlCandidates(
  env: { OS_CLIENT_CONFIG_FILE?: string; HOME?: string },
  cwd: string,
): string[] {
  const named = env.OS_CLIENT_CONFIG_FILE;
  if (named !== undefined && named !== "") return [named];
  const dirs = [cwd, ...(env.HOME ? [join(env.HOME, ".config", "openstack")] : []), "/etc/openstack"];
  return dirs.flatMap((dir) => fileNames.map((name) => join(dir, name)));
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

const text = (value: unknown): string | undefined =>
  typeof value === "string" && value !== "" ? value : typeof value === "number" ? String(value) : undefined;

function domainOf(auth: Record<string, unknown>, kind: "user" | "project") {
  const name = text(auth[`${kind}_domain_name`]) ?? text(auth.domain_name);
  const id = text(auth[`${kind}_domain_id`]) ?? text(auth.domain_id);
  if (name === undefined && id === undefined) return { name: "Default" };
  return id !== undefined ? { id } : { name: name as string };
}

/** The identity endpoint of `auth_url`, which clouds.yaml gives with or without its `/v3`. */
export function identityEndpoint(authUrl: string): string {
  const trimmed = authUrl.replace(/\/+$/, "");
  return /\/v3$/.test(trimmed) ? trimmed : `${trimmed}/v3`;
}

/**
 * Reads the entry `name` of the first clouds.yaml found (`cloudsYamlCandidates`) for identity v3
 * password authentication. Refuses, naming the file and entry: no file, an entry missing, an auth type
 * other than password, missing `auth_url`, user, password or project.
 */
export function readPasswordCloud(
  name: string,
  options: { env: { OS_CLIENT_CONFIG_FILE?: string; HOME?: string }; cwd: string },
): PasswordCloud {
  const candidates = cloudsYamlCandidates(options.env, options.cwd);
  const path = candidates.find((p) => existsSync(p));
  if (path === undefined) {
    throw new CloudsYamlError(`no clouds.yaml found (looked for ${candidates.join(", ")})`);
  }
  let document: unknown;
  try {
    document = parse(readFileSync(path, "utf8"));
  } catch (cause) {
    throw new CloudsYamlError(`${path} cannot be read as YAML`, { cause });
  }
  const clouds = isObject(document) ? document.clouds : undefined;
  const entry = isObject(clouds) ? clouds[name] : undefined;
  if (!isObject(entry)) throw new CloudsYamlError(`${path} has no cloud entry ${JSON.stringify(name)}`);
  const where = `${path}, cloud ${name}`;
  const authType = text(entry.auth_type) ?? "password";
  if (authType !== "password" && authType !== "v3password") {
    throw new CloudsYamlError(`${where}: auth_type ${authType} is not supported (password only)`);
  }
  const auth = isObject(entry.auth) ? entry.auth : {};
  const problems: string[] = [];
  const authUrl = text(auth.auth_url);
  if (authUrl === undefined || !/^https?:\/\//.test(authUrl))
    problems.push("auth.auth_url (an http or https URL)");
  const password = text(auth.password);
  if (password === undefined) problems.push("auth.password");
  const userId = text(auth.user_id);
  const username = text(auth.username);
  if (userId === undefined && username === undefined) problems.push("auth.username or auth.user_id");
  const projectId = text(auth.project_id) ?? text(auth.tenant_id);
  const projectName = text(auth.project_name) ?? text(auth.tenant_name);
  if (projectId === undefined && projectName === undefined)
    problems.push("auth.project_name or auth.project_id");
  const iface = (text(entry.interface) ?? "public").replace(/URL$/, "");
  if (iface !== "public" && iface !== "internal" && iface !== "admin")
    problems.push("interface (public, internal or admin)");
  if (problems.length > 0) throw new CloudsYamlError(`${where}: needs ${problems.join(", ")}`);
  return {
    authUrl: identityEndpoint(authUrl as string),
    user:
      userId !== undefined ? { id: userId } : { name: username as string, domain: domainOf(auth, "user") },
    password: new Secret(password as string),
    project:
      projectId !== undefined
        ? { id: projectId }
        : { name: projectName as string, domain: domainOf(auth, "project") },
    region: text(entry.region_name) ?? null,
    interface: iface as PasswordCloud["interface"],
    verify: entry.verify !== false && entry.insecure !== true,
    cacert: text(entry.cacert) ?? null,
  };
}
