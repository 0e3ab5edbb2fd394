import { expect, test } from "bun:test";
import { readTlsFiles } from "./tls-files.ts";

const read = (path: string) => {
  if (path.startsWith("/missing")) throw new Error("ENOENT");
  return `PEM of ${path}`;
};

test("none given is no TLS; all three are read", () => {
  expect(readTlsFiles({}, read)).toBeUndefined();
  expect(readTlsFiles({ privateKey: "/k", certificate: "/c", caCert: "/ca" }, read)).toEqual({
    privateKey: "PEM of /k",
    certificate: "PEM of /c",
    caCert: "PEM of /ca",
  });
});

test("some without the others, and unreadable files, are refused", () => {
  expect(() => readTlsFiles({ privateKey: "/k" }, read)).toThrow(
    "--private-key, --certificate and --ca-cert go together",
  );
  expect(() =>
    readTlsFiles({ privateKey: "/missing-k", certificate: "/c", caCert: "/missing-ca" }, read),
  ).toThrow("cannot read /missing-k; cannot read /missing-ca");
});
