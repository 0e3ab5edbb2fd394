import { describe, expect, test } from "bun:test";
import { bearerToken, projectInScope } from "./authenticator.ts";
import type { ApiPrincipal } from "./credential-lookup.ts";
import { roleCovers } from "./roles.ts";

describe("bearerToken", () => {
  test("reads `Bearer <token>` in any case of the scheme, and nothing else", () => {
    expect(bearerToken("Bearer abc")).toBe("abc");
    expect(bearerToken("bearer abc")).toBe("abc");
    expect(bearerToken(null)).toBeNull();
    expect(bearerToken("Basic abc")).toBeNull();
    expect(bearerToken("Bearer")).toBeNull();
    expect(bearerToken("Bearer a b")).toBeNull();
    expect(bearerToken(`Bearer ${"x".repeat(513)}`)).toBeNull();
  });
});

describe("roles and project scope", () => {
  test("each role covers the ones below it and none above", () => {
    expect(roleCovers("admin", "reader")).toBe(true);
    expect(roleCovers("read_all", "read_all")).toBe(true);
    expect(roleCovers("reader", "read_all")).toBe(false);
    expect(roleCovers("read_all", "admin")).toBe(false);
  });

  test("a scoped token sees its projects only; an unscoped one and disabled auth see all", () => {
    const scoped: ApiPrincipal = { scheme: "api", id: "t1", role: "reader", projectIds: ["p1"] };
    const unscoped: ApiPrincipal = { scheme: "api", id: "t2", role: "admin", projectIds: null };
    expect(projectInScope(scoped, "p1")).toBe(true);
    expect(projectInScope(scoped, "p2")).toBe(false);
    expect(projectInScope(unscoped, "p2")).toBe(true);
    expect(projectInScope(null, "p2")).toBe(true);
  });
});
