import { Problems, UsageError } from "../../foundation/cli/usage-error.ts";

export interface TlsMaterial {
  privateKey: string;
  certificate: string;
  caCert: string;
}

/**
 * The PEM files of `--private-key`, `--certificate` and `--ca-cert`, which go together: undefined when
 * none is given; one UsageError when only some are given or a file cannot be read.
 */
export function readTlsFiles(
  paths: { privateKey?: string | undefined; certificate?: string | undefined; caCert?: string | undefined },
  readFile: (path: string) => string,
): TlsMaterial | undefined {
  const given = [paths.privateKey, paths.certificate, paths.caCert];
  if (given.every((p) => p === undefined)) return undefined;
  if (given.some((p) => p === undefined)) {
    throw new UsageError("--private-key, --certificate and --ca-cert go together");
  }
  const problems = new Problems();
  const [privateKey, certificate, caCert] = given.map((path) => {
    try {
      return readFile(path ?? "");
    } catch {
      problems.add(`cannot read ${path}`);
      return "";
    }
  });
  problems.throwIfAny();
  return { privateKey: privateKey ?? "", certificate: certificate ?? "", caCert: caCert ?? "" };
}
