import { expect } from "bun:test";
import { reportingDocument } from "../../lib/billing/reporting/contract/reporting-contract.ts";
import { ContractChecker } from "./contract-checker.ts";

/**
 * The served contract as the tests hold the server to it: every response a reporting test receives,
 * from an app in the test's process or from a server process over HTTP, is checked against the
 * document before the test sees it (decision 140). One checker per process.
 */
export const contract = new ContractChecker(reportingDocument());

/** A response read whole: status, headers, the text and, when it parses, the JSON. */
interface CheckedResponse {
  status: number;
  headers: Headers;
  text: string;
  json: unknown;
}

/** Reads `res` whole and fails the test if it breaks the contract of `method` on `url`. */
export async function checkedResponse(method: string, url: string, res: Response): Promise<CheckedResponse> {
  const text = await res.text();
  let json: unknown = text;
  try {
    json = JSON.parse(text);
  } catch {}
  const path = new URL(url, "http://localhost").pathname;
  // The document and its page describe the contract; they are not operations of it.
  if (!path.startsWith("/api/v1/docs") && path !== "/api/v1/openapi.json") {
    expect(
      contract.problems({
        method,
        path,
        status: res.status,
        contentType: res.headers.get("content-type"),
        body: json,
      }),
    ).toEqual([]);
  }
  return { status: res.status, headers: res.headers, text, json };
}

/** `fetch` against a reporting server, its answer checked against the contract. */
export async function contractFetch(url: string, init: RequestInit = {}): Promise<CheckedResponse> {
  return checkedResponse(init.method ?? "GET", url, await fetch(url, init));
}
