import { describe, expect, test } from "bun:test";
import { WhereClause } from "./where-clause.ts";

describe("WhereClause", () => {
  test("only the conditions given a value, their values bound in order", () => {
    const where = new WhereClause()
      .anyOf("cluster", ["a", "b"])
      .anyOf("op", [])
      .when("seq > ?", 4)
      .when("at < ?", undefined)
      .anyOf("tbl", undefined)
      .when("plan_id = ?", "p");
    expect([String(where), where.args]).toEqual([
      "where cluster in (?, ?) and seq > ? and plan_id = ?",
      ["a", "b", 4, "p"],
    ]);
  });

  test("no condition is no clause", () => {
    expect([String(new WhereClause().when("id < ?", undefined)), new WhereClause().args]).toEqual(["", []]);
  });
});
