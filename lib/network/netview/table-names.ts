/**
 * The route names of the spec mapped to OVSDB table names. The NB and SB lists are the spec's; the
 * switch list is its nineteen Open_vSwitch tables (`{table}` is the lower-cased name, `_` as `-`).
 */

export const nbTables = {
  "logical-switches": "Logical_Switch",
  "logical-switch-ports": "Logical_Switch_Port",
  "logical-routers": "Logical_Router",
  "logical-router-ports": "Logical_Router_Port",
  acls: "ACL",
  nats: "NAT",
  "address-sets": "Address_Set",
  "port-groups": "Port_Group",
  "load-balancers": "Load_Balancer",
  "load-balancer-groups": "Load_Balancer_Group",
  "logical-router-policies": "Logical_Router_Policy",
  "logical-router-static-routes": "Logical_Router_Static_Route",
  "dhcp-options": "DHCP_Options",
  "nb-global": "NB_Global",
  connections: "Connection",
  dns: "DNS",
  "gateway-chassis": "Gateway_Chassis",
  "ha-chassis-groups": "HA_Chassis_Group",
  "ha-chassis": "HA_Chassis",
  meters: "Meter",
  qos: "QoS",
  bfd: "BFD",
  copp: "Copp",
  mirrors: "Mirror",
  "forwarding-groups": "Forwarding_Group",
  "static-mac-bindings": "Static_MAC_Binding",
  "load-balancer-health-checks": "Load_Balancer_Health_Check",
} as const satisfies Record<string, string>;

export const sbTables = {
  chassis: "Chassis",
  "port-bindings": "Port_Binding",
  "datapath-bindings": "Datapath_Binding",
  "logical-flows": "Logical_Flow",
  encaps: "Encap",
  "mac-bindings": "MAC_Binding",
  fdb: "FDB",
  "multicast-groups": "Multicast_Group",
  "address-sets": "Address_Set",
  "port-groups": "Port_Group",
  "load-balancers": "Load_Balancer",
  dns: "DNS",
  "sb-global": "SB_Global",
  connections: "Connection",
  "gateway-chassis": "Gateway_Chassis",
  "ha-chassis-groups": "HA_Chassis_Group",
  "ha-chassis": "HA_Chassis",
  "ip-multicast": "IP_Multicast",
  "igmp-groups": "IGMP_Group",
  "service-monitors": "Service_Monitor",
  bfd: "BFD",
  meters: "Meter",
  mirrors: "Mirror",
  "chassis-private": "Chassis_Private",
  "controller-events": "Controller_Event",
  "static-mac-bindings": "Static_MAC_Binding",
  "logical-dp-groups": "Logical_DP_Group",
  "rbac-roles": "RBAC_Role",
  "rbac-permissions": "RBAC_Permission",
} as const satisfies Record<string, string>;

export const ovsTableNames = [
  "Interface",
  "Bridge",
  "Port",
  "Open_vSwitch",
  "Manager",
  "Controller",
  "IPFIX",
  "sFlow",
  "NetFlow",
  "Mirror",
  "QoS",
  "Queue",
  "CT_Zone",
  "CT_Timeout_Policy",
  "Datapath",
  "Flow_Table",
  "Flow_Sample_Collector_Set",
  "SSL",
  "AutoAttach",
] as const;

/** `CT_Timeout_Policy` → `ct-timeout-policy`. */
export function ovsRouteName(table: string): string {
  return table.toLowerCase().replaceAll("_", "-");
}

export const ovsTables: Record<string, string> = Object.fromEntries(
  ovsTableNames.map((name) => [ovsRouteName(name), name]),
);
