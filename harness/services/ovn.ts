import { existsSync } from "node:fs";
import { join } from "node:path";
import { type DaemonControl, RestartableDaemon } from "../process/restartable-daemon.ts";
import { runCommand } from "../process/run-command.ts";
import { makeTempDir, type TempDir } from "../process/temp-dir.ts";
import { waitFor } from "../process/wait-for.ts";
import { type BareVswitchDb, type OvnChassis, startBareVswitchDb, startChassis } from "./ovn-chassis.ts";
import { ovnEnv } from "./ovn-env.ts";
import { ovsDaemonSpec } from "./ovs-daemon.ts";
import { type OvsdbServer, startOvsdbServer } from "./ovsdb-server.ts";

export type { BareVswitchDb, OvnChassis } from "./ovn-chassis.ts";

/**
 * An OVN sandbox: NB and SB databases, ovn-northd and `chassis` hypervisors, all private; or, with
 * `SVC_TEST_OVN_NB` and `SVC_TEST_OVN_SB` set, an existing OVN (then `external` is true, `chassis` is
 * empty, and the chassis helpers, daemons and `startBareVswitchDb` refuse).
 */
export interface OvnService {
  readonly external: boolean;
  /** `tcp:127.0.0.1:<port>` (or the given remote). */
  readonly nbRemote: string;
  readonly sbRemote: string;
  /** `unix:<path>`; the TCP remote again when external. */
  readonly nbSocket: string;
  readonly sbSocket: string;
  readonly chassis: readonly OvnChassis[];
  /** The sandbox's daemons, for fault tests (stop, kill, start again on the same ports and files). */
  readonly nb: DaemonControl;
  readonly sb: DaemonControl;
  readonly northd: DaemonControl;
  readonly dir: string | undefined;
  nbctl(args: readonly string[]): Promise<string>;
  sbctl(args: readonly string[]): Promise<string>;
  vsctl(chassisIndex: number, args: readonly string[]): Promise<string>;
  /** Adds a `type=dummy` interface with external_ids:iface-id=`lspName` to br-int of the chassis. */
  bindPort(chassisIndex: number, lspName: string): Promise<void>;
  /** A switch database without ovs-vswitchd, stopped with the sandbox (or earlier by its `stop()`). */
  startBareVswitchDb(): Promise<BareVswitchDb>;
  /** Every live process of the sandbox. */
  processes(): number[];
  stop(): Promise<void>;
}

interface OvnOptions {
  /** Number of chassis (default 2). */
  chassis?: number;
  env?: Record<string, string | undefined>;
}

const cliTimeout = "--timeout=30";

function refuse(what: string): never {
  throw new Error(
    `${what} needs the private OVN sandbox; SVC_TEST_OVN_NB/SVC_TEST_OVN_SB name an external OVN`,
  );
}

function externalOvn(nbRemote: string, sbRemote: string): OvnService {
  const none: DaemonControl = {
    name: "external",
    running: true,
    pid: undefined,
    members: () => [],
    start: () => refuse("daemon control"),
    stop: () => refuse("daemon control"),
    kill: () => refuse("daemon control"),
  };
  return {
    external: true,
    nbRemote,
    sbRemote,
    nbSocket: nbRemote,
    sbSocket: sbRemote,
    chassis: [],
    nb: none,
    sb: none,
    northd: none,
    dir: undefined,
    nbctl: (args) => runCommand("ovn-nbctl", [`--db=${nbRemote}`, cliTimeout, ...args]),
    sbctl: (args) => runCommand("ovn-sbctl", [`--db=${sbRemote}`, cliTimeout, ...args]),
    vsctl: () => refuse("vsctl"),
    bindPort: () => refuse("bindPort"),
    startBareVswitchDb: () => refuse("startBareVswitchDb"),
    processes: () => [],
    stop: async () => {},
  };
}

async function startNorthd(dir: string, nb: OvsdbServer, sb: OvsdbServer): Promise<RestartableDaemon> {
  const northd = new RestartableDaemon(
    ovsDaemonSpec({
      name: "ovn-northd",
      command: "ovn-northd",
      dir,
      file: "ovn-northd",
      args: [`--ovnnb-db=${nb.unixRemote}`, `--ovnsb-db=${sb.unixRemote}`],
      env: ovnEnv(dir),
    }),
    () => existsSync(join(dir, "ovn-northd.ctl")),
  );
  await northd.start();
  return northd;
}

async function startSandbox(dir: TempDir, count: number): Promise<OvnService> {
  const central = dir.sub("central");
  const env = ovnEnv(central);
  const daemons: RestartableDaemon[] = [];
  const bare: BareVswitchDb[] = [];
  const stopAll = async (): Promise<void> => {
    await Promise.all([...bare.map((db) => db.stop()), ...daemons.map((daemon) => daemon.stop())]);
    dir.remove();
  };
  try {
    // The northbound and the southbound database: one ovsdb-server each, started side by side.
    const database = async (db: "nb" | "sb") => {
      const server = await startOvsdbServer({
        dir: central,
        name: `ovn${db}`,
        schema: `/usr/share/ovn/ovn-${db}.ovsschema`,
        env,
        label: `ovn-${db} ovsdb-server`,
      });
      daemons.push(server.daemon);
      return server;
    };
    const [nb, sb] = await Promise.all([database("nb"), database("sb")]);
    const nbctl = (args: readonly string[]) =>
      runCommand("ovn-nbctl", [`--db=${nb.unixRemote}`, cliTimeout, ...args], { env });
    const sbctl = (args: readonly string[]) =>
      runCommand("ovn-sbctl", [`--db=${sb.unixRemote}`, cliTimeout, ...args], { env });
    const [northd, chassis] = await Promise.all([
      startNorthd(central, nb, sb).then((daemon) => {
        daemons.push(daemon);
        return daemon;
      }),
      Promise.all(
        Array.from({ length: count }, (_, index) =>
          startChassis({ dir: dir.sub(`chassis-${index + 1}`), index, sbRemote: sb.unixRemote }).then(
            (one) => {
              daemons.push(one.controller, one.vswitchd, one.db);
              return one;
            },
          ),
        ),
      ),
    ]);
    // A chassis is usable once ovn-controller has written its Chassis_Private row; `--wait=hv`
    // returns at once while none exists, so tests could not rely on it before this.
    const expected = chassis.map((one) => one.systemId);
    await waitFor(
      async () => {
        const names = (await sbctl(["--bare", "--columns=name", "list", "Chassis_Private"])).split(/\s+/);
        return expected.every((name) => names.includes(name));
      },
      {
        timeoutMs: 30_000,
        intervalMs: 100,
        onTimeout: () => new Error(`chassis ${expected.join(", ")} did not register in Chassis_Private`),
      },
    );
    const chassisAt = (index: number): OvnChassis => {
      const one = chassis[index];
      if (one === undefined) throw new Error(`no chassis ${index}: the sandbox has ${chassis.length}`);
      return one;
    };
    return {
      external: false,
      nbRemote: nb.tcpRemote,
      sbRemote: sb.tcpRemote,
      nbSocket: nb.unixRemote,
      sbSocket: sb.unixRemote,
      chassis,
      nb: nb.daemon,
      sb: sb.daemon,
      northd,
      dir: dir.path,
      nbctl,
      sbctl,
      vsctl: (index, args) => chassisAt(index).vsctl(args),
      async bindPort(index, lspName) {
        await chassisAt(index).vsctl([
          "add-port",
          "br-int",
          lspName,
          "--",
          "set",
          "Interface",
          lspName,
          "type=dummy",
          `external_ids:iface-id=${lspName}`,
        ]);
      },
      async startBareVswitchDb() {
        const db = await startBareVswitchDb(dir.sub(`bare-${bare.length + 1}`));
        bare.push(db);
        return db;
      },
      processes: () => [...daemons, ...bare.map((db) => db.db)].flatMap((daemon) => daemon.members()),
      stop: stopAll,
    };
  } catch (error) {
    await stopAll();
    throw error;
  }
}

/** Starts a private sandbox, or uses `SVC_TEST_OVN_NB` and `SVC_TEST_OVN_SB` when both are set. */
export async function startOvn(options: OvnOptions = {}): Promise<OvnService> {
  const env = options.env ?? process.env;
  const nb = env.SVC_TEST_OVN_NB;
  const sb = env.SVC_TEST_OVN_SB;
  if (nb !== undefined && nb !== "" && sb !== undefined && sb !== "") return externalOvn(nb, sb);
  if ((nb ?? "") !== "" || (sb ?? "") !== "")
    throw new Error("set both SVC_TEST_OVN_NB and SVC_TEST_OVN_SB, or neither");
  return startSandbox(makeTempDir("ovn"), options.chassis ?? 2);
}
