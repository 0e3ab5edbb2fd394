import { expect, test } from "bun:test";
import { parseRemote, parseRemotes, RemoteError } from "./remote.ts";

test("remotes in OVS syntax", () => {
  expect(parseRemote("tcp:127.0.0.1:6641")).toEqual({
    kind: "tcp",
    host: "127.0.0.1",
    port: 6641,
    text: "tcp:127.0.0.1:6641",
  });
  expect(parseRemote("ssl:[fd00::1]:6642")).toMatchObject({ kind: "ssl", host: "fd00::1", port: 6642 });
  expect(parseRemote("unix:/run/ovn/ovnnb_db.sock")).toMatchObject({
    kind: "unix",
    path: "/run/ovn/ovnnb_db.sock",
  });
  expect(parseRemotes("tcp:a:1, tcp:b:2")).toHaveLength(2);
  for (const bad of ["tcp:a", "http://a:1", "tcp:a:0", "tcp:a:70000", "unix:", "ptcp:6641"]) {
    expect(() => parseRemote(bad)).toThrow(RemoteError);
  }
  expect(() => parseRemotes(" , ")).toThrow(RemoteError);
});
