import type { Sql } from "postgres";
import type { Secret } from "../../../foundation/config/secret.ts";
import { ForbiddenError, UnauthorizedError, UnavailableError } from "../../../foundation/errors/svc-error.ts";
import { bearerToken, sameSecret } from "../../../foundation/http/bearer-token.ts";
import {
  type ApiPrincipal,
  findApiToken,
  findIngestCredential,
  type IngestPrincipal,
} from "./credential-lookup.ts";
import { type Role, roleCovers } from "./roles.ts";

export { bearerToken };

export type AuthMode = "enforced" | "disabled";

/**
 * The three bearer schemes. Each operation asks for its own scheme and looks the token up only there,
 * so a token of one scheme is no credential at all for the other two (401). A known token below the
 * operation's role is 403. In mode `disabled` every check passes without a credential and answers
 * null (no principal: no scope applies). A credential store that cannot be reached is 503.
 */
export class Authenticator {
  constructor(private readonly deps: { mode: AuthMode; sql: Sql; internalToken: Secret | undefined }) {}

  get mode(): AuthMode {
    return this.deps.mode;
  }

  async ingest(request: Request): Promise<IngestPrincipal | null> {
    if (this.deps.mode === "disabled") return null;
    const token = bearerToken(request.headers.get("authorization"));
    if (token === null)
      throw new UnauthorizedError("an ingest credential is required (Authorization: Bearer)");
    const principal = await this.#lookup(() => findIngestCredential(this.deps.sql, token));
    if (principal === null)
      throw new UnauthorizedError("the bearer token is not an active ingest credential");
    return principal;
  }

  async api(request: Request, needed: Role): Promise<ApiPrincipal | null> {
    if (this.deps.mode === "disabled") return null;
    const token = bearerToken(request.headers.get("authorization"));
    if (token === null) throw new UnauthorizedError("an API token is required (Authorization: Bearer)");
    const principal = await this.#lookup(() => findApiToken(this.deps.sql, token));
    if (principal === null) throw new UnauthorizedError("the bearer token is not an active API token");
    if (!roleCovers(principal.role, needed)) {
      throw new ForbiddenError(`this operation needs role ${needed} or above`);
    }
    return principal;
  }

  internal(request: Request): void {
    if (this.deps.mode === "disabled") return;
    const token = bearerToken(request.headers.get("authorization"));
    const expected = this.deps.internalToken?.reveal();
    if (token === null || expected === undefined || !sameSecret(token, expected)) {
      throw new UnauthorizedError("the internal token is required (Authorization: Bearer)");
    }
  }

  async #lookup<T>(find: () => Promise<T>): Promise<T> {
    try {
      return await find();
    } catch (cause) {
      throw new UnavailableError("the credential store cannot be reached", { cause });
    }
  }
}

/** Whether a principal may see a project (registry id); no principal (auth disabled) sees all. */
export function projectInScope(principal: ApiPrincipal | null, projectId: string): boolean {
  return principal === null || principal.projectIds === null || principal.projectIds.includes(projectId);
}
