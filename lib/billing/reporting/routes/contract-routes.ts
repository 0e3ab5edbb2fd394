import { Elysia } from "elysia";
import { apiDocsRoutes } from "../../../foundation/http/api-docs-routes.ts";
import { reportingDocsPath, reportingDocument, reportingSpecPath } from "../contract/reporting-contract.ts";

/**
 * The contract, no credential: the OpenAPI 3.0.3 document and the interactive page over it, served
 * from local files. The document is generated once, at start, from the operations' schemas.
 */
export function contractRoutes() {
  const document = JSON.stringify(reportingDocument());
  return new Elysia({ name: "reporting-contract" })
    .get(reportingSpecPath, () => new Response(document, { headers: { "content-type": "application/json" } }))
    .use(
      apiDocsRoutes({
        service: "reporting",
        title: "svc Reporting API",
        path: reportingDocsPath,
        specPath: reportingSpecPath,
      }),
    );
}
