import { describe, expect, test } from "bun:test";
import { Type } from "@sinclair/typebox";
import { openApiProblems } from "../../../../harness/http/openapi-problems.ts";
import { openApiDocument } from "./openapi-document.ts";
import { operation } from "./operation.ts";
import { reportingDocument } from "./reporting-contract.ts";

describe("the reporting OpenAPI document", () => {
  test("is OpenAPI 3.0.3 without a servers block and passes the OpenAPI 3.0 schema", async () => {
    const document = reportingDocument();
    expect(document.openapi).toBe("3.0.3");
    expect(document).not.toHaveProperty("servers");
    expect(await openApiProblems(document)).toEqual([]);
  });

  test("every error status answers the Problem document as application/problem+json", () => {
    const document = reportingDocument() as {
      paths: Record<
        string,
        Record<string, { responses: Record<string, { content: Record<string, unknown> }> }>
      >;
    };
    for (const [path, methods] of Object.entries(document.paths)) {
      for (const [method, op] of Object.entries(methods)) {
        for (const [status, response] of Object.entries(op.responses)) {
          if (Number(status) < 400) continue;
          expect({ at: `${method} ${path} ${status}`, content: Object.keys(response.content) }).toEqual({
            at: `${method} ${path} ${status}`,
            content: ["application/problem+json"],
          });
        }
      }
    }
  });
});

describe("schema conversion to OpenAPI 3.0", () => {
  test("null unions, records, literals, named components", async () => {
    const Named = Type.Object({ a: Type.String() }, { $id: "Named" });
    const op = operation({
      method: "GET",
      path: "/x/{id}",
      operationId: "x",
      tag: "t",
      summary: "x",
      security: "api",
      params: Type.Object({ id: Type.String() }),
      query: Type.Object({ kind: Type.Optional(Type.Union([Type.Literal("a"), Type.Literal("b")])) }),
      success: {
        200: {
          description: "ok",
          schema: Type.Object({
            n: Type.Union([Type.String(), Type.Null()]),
            r: Type.Record(Type.String(), Type.Unknown()),
            named: Type.Union([Named, Type.Null()]),
            k: Type.Literal("k"),
            e: Type.Integer({ exclusiveMinimum: 0 }),
          }),
        },
      },
      errors: [404],
    });
    const document = openApiDocument({ title: "t", version: "1", description: "d" }, [op]) as {
      paths: {
        "/x/{id}": {
          get: {
            parameters: unknown[];
            responses: Record<string, { content: Record<string, { schema: unknown }> }>;
          };
        };
      };
      components: { schemas: Record<string, unknown> };
    };
    expect(await openApiProblems(document)).toEqual([]);
    const get = document.paths["/x/{id}"].get;
    expect(get.parameters).toEqual([
      { name: "id", in: "path", required: true, schema: { type: "string" } },
      { name: "kind", in: "query", required: false, schema: { type: "string", enum: ["a", "b"] } },
    ]);
    expect(get.responses["200"]?.content["application/json"]?.schema).toEqual({
      type: "object",
      required: ["n", "r", "named", "k", "e"],
      properties: {
        n: { type: "string", nullable: true },
        r: { type: "object", additionalProperties: true },
        named: { allOf: [{ $ref: "#/components/schemas/Named" }], nullable: true },
        k: { type: "string", enum: ["k"] },
        e: { type: "integer", minimum: 0, exclusiveMinimum: true },
      },
    });
    expect(Object.keys(document.components.schemas).sort()).toEqual(["FieldError", "Named", "Problem"]);
    expect(Object.keys(get.responses).sort()).toEqual(["200", "400", "401", "403", "404", "500", "503"]);
  });
});
