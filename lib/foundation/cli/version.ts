import manifest from "../../../package.json" with { type: "json" };

/** The version every program reports with `--version`: the package's, one for the whole toolkit. */
export const svcVersion: string = manifest.version;

/** The line `<program> --version` prints. */
export function versionLine(program: string): string {
  return `${program} (svc) ${svcVersion}`;
}
