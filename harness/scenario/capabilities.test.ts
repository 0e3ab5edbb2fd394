import { expect, test } from "bun:test";
import { missingFor } from "./capabilities.ts";

test("a scenario waits for what is not built, named in words; nothing when all is built", () => {
  expect(missingFor(["broker", "reconcile"], new Set(["broker"]))).toBe("reconciliation");
  expect(missingFor(["registry", "correct"], new Set())).toBe(
    "the project registry and simulator run --register-projects, engine correct",
  );
  expect(missingFor(["broker"], new Set(["broker"]))).toBeNull();
});
