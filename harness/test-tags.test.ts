import { describe, expect, test } from "bun:test";
import { skipsTag } from "./test-tags.ts";

describe("skipsTag", () => {
  test("skips a tag the list names, alone or among others, and nothing when unset", () => {
    expect([
      skipsTag("cluster", { SVC_TEST_SKIP: "cluster" }),
      skipsTag("cluster", { SVC_TEST_SKIP: "slow, cluster" }),
      skipsTag("cluster", { SVC_TEST_SKIP: "clustered" }),
      skipsTag("cluster", { SVC_TEST_SKIP: "" }),
      skipsTag("cluster", {}),
    ]).toEqual([true, true, false, false, false]);
  });
});
