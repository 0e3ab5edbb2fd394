import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { RestartableDaemon } from "../process/restartable-daemon.ts";
import { runCommand } from "../process/run-command.ts";
import { ovnEnv } from "./ovn-env.ts";
import { ovsDaemonSpec } from "./ovs-daemon.ts";
import { type OvsdbServer, startOvsdbServer } from "./ovsdb-server.ts";

const vswitchSchema = "/usr/share/openvswitch/vswitch.ovsschema";

/** One hypervisor of the sandbox: its switch database, `ovs-vswitchd` on dummy netdevs, `ovn-controller`. */
export interface OvnChassis {
  readonly index: number;
  /** external_ids:system-id, the Chassis and Chassis_Private name. */
  readonly systemId: string;
  readonly encapIp: string;
  /** `tcp:127.0.0.1:<port>`: the chassis's management address (netview connects here). */
  readonly dbRemote: string;
  /** `unix:<path>` of the switch database. */
  readonly dbSocket: string;
  readonly dir: string;
  readonly db: RestartableDaemon;
  readonly vswitchd: RestartableDaemon;
  readonly controller: RestartableDaemon;
  /** Runs `ovs-vsctl` against this chassis's database and returns its stdout. */
  vsctl(args: readonly string[]): Promise<string>;
}

/** A bare switch database (no ovs-vswitchd): `statistics` stay as written, for error and drop counter tests. */
export interface BareVswitchDb {
  readonly dbRemote: string;
  readonly dbSocket: string;
  readonly db: RestartableDaemon;
  /** `ovs-vsctl --no-wait` against it (nothing would ever answer a wait). */
  vsctl(args: readonly string[]): Promise<string>;
  stop(): Promise<void>;
}

function vsctlOn(server: OvsdbServer, env: Record<string, string>, extra: readonly string[] = []) {
  return (args: readonly string[]) =>
    runCommand("ovs-vsctl", [`--db=${server.unixRemote}`, "--timeout=30", ...extra, ...args], { env });
}

/** Starts a switch database with `ovs-vsctl init` done: the base of a chassis and of a bare database. */
async function startVswitchDb(dir: string, label: string): Promise<OvsdbServer> {
  const env = ovnEnv(dir);
  const server = await startOvsdbServer({ dir, name: "conf", schema: vswitchSchema, env, label });
  // Retried: under load the socket was seen refusing the first connect (a CI run).
  await vsctlOn(server, env, ["--retry"])(["--no-wait", "init"]);
  return server;
}

export async function startBareVswitchDb(dir: string): Promise<BareVswitchDb> {
  const server = await startVswitchDb(dir, "bare vswitch ovsdb-server");
  return {
    dbRemote: server.tcpRemote,
    dbSocket: server.unixRemote,
    db: server.daemon,
    vsctl: vsctlOn(server, ovnEnv(dir), ["--no-wait"]),
    stop: () => server.daemon.stop(),
  };
}

/** Starts chassis `index` (0-based) against the SB at `sbRemote`; its registration is awaited by the caller. */
export async function startChassis(options: {
  dir: string;
  index: number;
  sbRemote: string;
}): Promise<OvnChassis> {
  const { dir, index } = options;
  const env = ovnEnv(dir);
  const systemId = `chassis-${index + 1}`;
  // Each chassis needs an encap IP of its own, or the second one does not register.
  const encapIp = `127.0.0.${11 + index}`;
  const server = await startVswitchDb(dir, `${systemId} ovsdb-server`);
  const vsctl = vsctlOn(server, env);
  await vsctl([
    "--no-wait",
    "set",
    "Open_vSwitch",
    ".",
    `external_ids:system-id=${systemId}`,
    `external_ids:ovn-remote=${options.sbRemote}`,
    "external_ids:ovn-encap-type=geneve",
    `external_ids:ovn-encap-ip=${encapIp}`,
    "--",
    "add-br",
    "br-int",
    "--",
    "set",
    "Bridge",
    "br-int",
    "datapath-type=dummy",
    "fail-mode=secure",
    "other-config:disable-in-band=true",
  ]);
  const vswitchd = new RestartableDaemon(
    ovsDaemonSpec({
      name: `${systemId} ovs-vswitchd`,
      command: "ovs-vswitchd",
      dir,
      file: "ovs-vswitchd",
      args: [server.unixRemote, "--enable-dummy=override"],
      env,
    }),
    () => existsSync(join(dir, "ovs-vswitchd.ctl")),
  );
  await vswitchd.start();
  const controller = new RestartableDaemon(
    ovsDaemonSpec({
      name: `${systemId} ovn-controller`,
      command: "ovn-controller",
      dir,
      file: "ovn-controller",
      args: [server.unixRemote],
      env,
      unixctl: false,
    }),
    // ovn-controller takes no --unixctl: its control socket appears in OVN_RUNDIR once it runs.
    (daemon) => readdirSync(dir).includes(`ovn-controller.${daemon.pid}.ctl`),
  );
  await controller.start();
  return {
    index,
    systemId,
    encapIp,
    dbRemote: server.tcpRemote,
    dbSocket: server.unixRemote,
    dir,
    db: server.daemon,
    vswitchd,
    controller,
    vsctl,
  };
}
