import { describe, expect, test } from "bun:test";
import { currentParentPid } from "./parent-watch.ts";

describe("currentParentPid", () => {
  test("reads the fourth field of /proc/self/stat, after a command name with spaces and parentheses", () => {
    expect(currentParentPid("4242 (bun (worker) 2) S 17 4242 4242 0 -1")).toBe(17);
  });

  test("this process's parent, as the kernel has it", () => {
    expect(currentParentPid()).toBe(process.ppid);
  });
});
