import { join } from "node:path";
import type { DaemonSpec } from "../process/daemon.ts";

/**
 * An Open vSwitch or OVN daemon as the harness runs each of them in `dir`: after its own `args`, its
 * pid file, control socket (`unixctl: false` for ovn-controller, which takes none) and log file named
 * `<file>.pid`, `.ctl` and `.log`, nothing on the console, and what it prints in `<file>.out`.
 */
export function ovsDaemonSpec(options: {
  name: string;
  command: string;
  dir: string;
  file: string;
  args: readonly string[];
  env: Record<string, string | undefined>;
  unixctl?: boolean;
}): DaemonSpec {
  const { dir, file } = options;
  const at = (ending: string) => join(dir, `${file}.${ending}`);
  return {
    name: options.name,
    command: options.command,
    args: [
      ...options.args,
      `--pidfile=${at("pid")}`,
      ...(options.unixctl === false ? [] : [`--unixctl=${at("ctl")}`]),
      `--log-file=${at("log")}`,
      "-vconsole:off",
    ],
    logFile: at("out"),
    extraLogs: [at("log")],
    env: options.env,
    cwd: dir,
  };
}
