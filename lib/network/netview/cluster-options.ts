import type { Remote } from "../ovsdb/remote.ts";

/** One cluster netview serves: its NB and SB remotes and, when given, its chassis' switch databases. */
export interface ClusterOptions {
  name: string;
  nb: Remote[];
  sb: Remote[];
  /** Per chassis system-id: its switch database's management address. */
  ovsMgmt: Map<string, Remote[]> | undefined;
}
