import { expect, test } from "bun:test";
import { MgmtAddrFileError, parseMgmtAddrFile } from "./mgmt-addr-file.ts";

test("lines, comments and = separators", () => {
  const map = parseMgmtAddrFile("# fleet\nchassis-1 tcp:10.0.0.1:6640\nchassis-2=ssl:[::1]:6640 # v6\n\n");
  expect([...map.keys()]).toEqual(["chassis-1", "chassis-2"]);
  expect(map.get("chassis-2")?.[0]).toMatchObject({ kind: "ssl", host: "::1", port: 6640 });
});

test("a JSON object", () => {
  const map = parseMgmtAddrFile('{"c1": "unix:/run/c1.sock"}');
  expect(map.get("c1")?.[0]).toMatchObject({ kind: "unix", path: "/run/c1.sock" });
});

test("refusals name the line", () => {
  expect(() => parseMgmtAddrFile("c1 tcp:nowhere")).toThrow(MgmtAddrFileError);
  expect(() => parseMgmtAddrFile("c1 tcp:h:1\nc1 tcp:h:2")).toThrow("line 2");
  expect(() => parseMgmtAddrFile("justone")).toThrow("line 1");
});
