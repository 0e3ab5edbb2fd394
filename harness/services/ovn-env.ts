/**
 * Points every OVS and OVN run, log, db and config dir at `dir`: without these the daemons and CLIs
 * reach for /var/run/openvswitch and the machine's own OVS.
 */
export function ovnEnv(dir: string): Record<string, string> {
  return {
    OVS_RUNDIR: dir,
    OVS_LOGDIR: dir,
    OVS_DBDIR: dir,
    OVS_SYSCONFDIR: dir,
    OVS_PKGDATADIR: "/usr/share/openvswitch",
    OVN_RUNDIR: dir,
    OVN_LOGDIR: dir,
    OVN_DBDIR: dir,
    OVN_SYSCONFDIR: dir,
  };
}
