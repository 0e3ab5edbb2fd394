/**
 * OpenAPI descriptions of the correlated and topology views (correlated.ts, topology.ts), member by
 * member as the debug answers are (debug-shapes.ts), so the document says what each answer holds and
 * the tests can check every answer against it.
 */
import { arr, n, obj, s } from "../debug/debug-shapes.ts";
import { syncStatusSchema } from "../openapi-shapes.ts";

type JsonSchema = Record<string, unknown>;

const orNull = (schema: JsonSchema): JsonSchema => ({ oneOf: [schema, { type: "null" }] });
const stringMap: JsonSchema = { type: "object", additionalProperties: { type: "string" } };
const strings = arr(s("string"));
const ref = obj({ uuid: s("string"), name: s("string") });

const chassisRef = obj(
  {
    uuid: s("string"),
    name: s("string", "system-id"),
    hostname: s("string"),
    alive: s("boolean"),
    sync_status: syncStatusSchema,
    tunnel_ips: strings,
  },
  "a southbound chassis with its liveness (the chassis inventory's)",
);

const datapathRef = obj({ uuid: s("string", "the SB Datapath_Binding"), tunnel_key: s("integer") });

const bindingRef = obj(
  {
    uuid: s("string"),
    type: s("string"),
    tunnel_key: s("integer"),
    up: n("boolean"),
    chassis: orNull(chassisRef),
    requested_chassis: orNull(chassisRef),
  },
  "the port's SB Port_Binding",
);

const aclView = obj({
  uuid: s("string"),
  name: n("string"),
  direction: s("string"),
  priority: s("integer"),
  match: s("string"),
  action: s("string"),
  log: s("boolean"),
  scope: orNull(
    obj({ kind: { enum: ["logical_switch", "port_group"] }, uuid: s("string"), name: s("string") }),
  ),
});

const lbView = obj({ uuid: s("string"), name: s("string"), protocol: n("string"), vips: stringMap });
const macBinding = obj({ uuid: s("string"), ip: s("string"), mac: s("string"), timestamp: s("integer") });
const fdbEntry = obj({ uuid: s("string"), mac: s("string") });

const switchPortMembers = {
  uuid: s("string"),
  name: s("string"),
  type: s("string"),
  addresses: strings,
  port_security: strings,
  enabled: n("boolean"),
  up: n("boolean"),
  router_port: { ...n("string"), description: "options:router-port of a router-type port" },
  binding: orNull(bindingRef),
};

const switchSummaryMembers = {
  uuid: s("string"),
  name: s("string"),
  datapath: orNull(datapathRef),
  ports: s("integer"),
  bound_ports: s("integer", "ports bound to a chassis"),
  up_ports: s("integer"),
  acls: s("integer", "ACLs applying here: the switch's own and its port groups'"),
  load_balancers: s("integer"),
  routers: { ...strings, description: "names of the routers attached" },
  subnet: n("string"),
  external_ids: stringMap,
};

export const switchSummarySchema = obj(switchSummaryMembers);

export const switchDetailSchema = obj({
  ...switchSummaryMembers,
  other_config: stringMap,
  port_list: arr(obj(switchPortMembers)),
  acl_list: arr(aclView),
  port_groups: arr(obj({ uuid: s("string"), name: s("string"), ports: strings })),
  load_balancer_list: arr(lbView),
  router_list: arr(
    obj({ uuid: s("string"), name: s("string"), via_switch_port: s("string"), router_port: s("string") }),
  ),
  dns_records: arr(stringMap),
  qos_rules: s("integer"),
});

export const switchPortDetailSchema = obj({
  ...switchPortMembers,
  switch: orNull(ref),
  datapath: orNull(datapathRef),
  options: stringMap,
  external_ids: stringMap,
  dynamic_addresses: n("string"),
  tag: n("integer"),
  parent_name: n("string"),
  port_groups: arr(ref),
  acls: arr(aclView),
  peer_router_port: orNull(obj({ uuid: s("string"), name: s("string"), router: orNull(ref) })),
  dhcpv4: orNull(obj({ uuid: s("string"), cidr: s("string"), options: stringMap })),
  mac_bindings: arr(macBinding),
  fdb: arr(fdbEntry),
});

const gatewayChassis = obj({
  chassis: s("string", "system-id"),
  priority: s("integer"),
  registered: s("boolean", "a Chassis row of that name exists"),
  alive: s("boolean"),
  active: s("boolean", "the chassisredirect port is bound there"),
});

const routerPortMembers = {
  uuid: s("string"),
  name: s("string"),
  mac: s("string"),
  networks: strings,
  enabled: n("boolean"),
  peer: n("string"),
  switch: orNull(obj({ uuid: s("string"), name: s("string"), switch_port: s("string") })),
  gateway_chassis: { ...arr(gatewayChassis), description: "by priority, highest first" },
  active_chassis: orNull(chassisRef),
};

const routerSummaryMembers = {
  uuid: s("string"),
  name: s("string"),
  datapath: orNull(datapathRef),
  ports: s("integer"),
  nat: s("integer"),
  static_routes: s("integer"),
  policies: s("integer"),
  load_balancers: s("integer"),
  gateway_router_chassis: { ...n("string"), description: "options:chassis of a gateway router" },
  external_ids: stringMap,
};

export const routerSummarySchema = obj(routerSummaryMembers);

export const routerDetailSchema = obj({
  ...routerSummaryMembers,
  options: stringMap,
  port_list: arr(obj(routerPortMembers)),
  nat_list: arr(
    obj({
      uuid: s("string"),
      type: s("string"),
      external_ip: s("string"),
      logical_ip: s("string"),
      external_mac: n("string"),
      logical_port: n("string"),
      gateway_port: n("string"),
    }),
  ),
  static_route_list: arr(
    obj({
      uuid: s("string"),
      ip_prefix: s("string"),
      nexthop: s("string"),
      output_port: n("string"),
      policy: n("string"),
      route_table: s("string"),
    }),
  ),
  policy_list: arr(
    obj({
      uuid: s("string"),
      priority: s("integer"),
      match: s("string"),
      action: s("string"),
      nexthops: strings,
    }),
  ),
  load_balancer_list: arr(lbView),
});

export const routerPortDetailSchema = obj({
  ...routerPortMembers,
  router: orNull(ref),
  datapath: orNull(datapathRef),
  options: stringMap,
  external_ids: stringMap,
  binding: orNull(bindingRef),
  mac_bindings: arr(macBinding),
  nat: arr(obj({ type: s("string"), external_ip: s("string"), logical_ip: s("string") })),
});

export const portBindingDetailSchema = obj({
  uuid: s("string"),
  logical_port: s("string"),
  type: s("string"),
  tunnel_key: s("integer"),
  up: n("boolean"),
  mac: strings,
  port_security: strings,
  options: stringMap,
  external_ids: stringMap,
  datapath: orNull(obj({ uuid: s("string"), tunnel_key: s("integer"), name: n("string"), nb: orNull(ref) })),
  chassis: orNull(chassisRef),
  requested_chassis: orNull(chassisRef),
  nb_port: orNull(
    obj({
      kind: { enum: ["logical_switch_port", "logical_router_port"] },
      uuid: s("string"),
      name: s("string"),
    }),
  ),
  mac_bindings: arr(macBinding),
  fdb: arr(fdbEntry),
});

const chassisSummaryMembers = {
  uuid: s("string"),
  name: s("string", "system-id"),
  hostname: s("string"),
  alive: s("boolean"),
  in_sync: s("boolean"),
  sync_status: syncStatusSchema,
  encaps: arr(obj({ type: s("string"), ip: s("string") })),
  bound_ports: s("integer"),
};

export const chassisSummarySchema = obj(chassisSummaryMembers);

export const chassisDetailSchema = obj({
  ...chassisSummaryMembers,
  other_config: stringMap,
  external_ids: stringMap,
  bound_port_list: arr(
    obj({
      uuid: s("string"),
      logical_port: s("string"),
      type: s("string"),
      up: n("boolean"),
      datapath: { ...n("string"), description: "the datapath's name" },
    }),
  ),
  gateway_duties: arr(
    obj({ router_port: s("string"), router: n("string"), priority: s("integer"), active: s("boolean") }),
  ),
});

const node = obj({
  type: { enum: ["logical_switch", "logical_router", "physical_network"] },
  uuid: s("string", "empty for a physical network"),
  name: s("string"),
});

export const topologySchema = obj({
  switches: arr(obj({ uuid: s("string"), name: s("string"), tunnel_key: n("integer"), ports: s("integer") })),
  routers: arr(
    obj({
      uuid: s("string"),
      name: s("string"),
      tunnel_key: n("integer"),
      ports: s("integer"),
      gateway_chassis: { ...n("string"), description: "options:chassis of a gateway router" },
    }),
  ),
  ports: arr(
    obj({
      uuid: s("string"),
      name: s("string"),
      kind: { enum: ["logical_switch_port", "logical_router_port"] },
      type: s("string"),
      owner: s("string", "the switch's or router's uuid"),
      chassis: n("string"),
      up: n("boolean"),
      addresses: { ...strings, description: "a switch port's addresses column" },
      mac: { ...n("string"), description: "a router port's MAC" },
      networks: { ...strings, description: "a router port's networks" },
    }),
  ),
  links: arr(
    obj({
      kind: { enum: ["switch-router", "router-router", "switch-physical"] },
      from: node,
      to: node,
      via: { ...strings, description: "the ports the link goes through" },
    }),
  ),
  chassis: arr(
    obj({
      uuid: s("string"),
      name: s("string"),
      hostname: s("string"),
      alive: s("boolean"),
      encaps: arr(obj({ type: s("string"), ip: s("string") })),
      ports: { ...strings, description: "logical ports bound there" },
    }),
  ),
});

export const gatewayTopologySchema = obj({
  gateway_ports: arr(
    obj({
      router_port: obj({ uuid: s("string"), name: s("string"), networks: strings }),
      router: orNull(ref),
      ha_chassis_group: n("string"),
      chassisredirect_port: n("string"),
      active_chassis: n("string"),
      chassis: {
        ...arr(
          obj({
            name: s("string", "system-id"),
            priority: s("integer"),
            registered: s("boolean"),
            alive: s("boolean"),
            active: s("boolean"),
          }),
        ),
        description: "by priority, highest first",
      },
    }),
  ),
  gateway_routers: arr(
    obj({ router: ref, chassis: s("string"), registered: s("boolean"), alive: s("boolean") }),
  ),
  ha_chassis_groups: arr(
    obj({
      uuid: s("string"),
      name: s("string"),
      sb_uuid: n("string"),
      used_by: { ...strings, description: "router ports using the group" },
      active_chassis: { ...n("string"), description: "the live member of highest priority" },
      chassis: arr(obj({ name: s("string"), priority: s("integer"), alive: s("boolean") })),
    }),
  ),
});

export const natTopologySchema = arr(
  obj({
    uuid: s("string"),
    router: ref,
    type: s("string"),
    external_ip: s("string"),
    logical_ip: s("string"),
    external_mac: n("string"),
    logical_port: n("string"),
    external_port_range: s("string"),
    gateway_port: n("string"),
    distributed: s("boolean", "performed on the chassis of the logical port (external_mac and logical_port)"),
    chassis: { ...n("string"), description: "the chassis that performs it" },
  }),
);

export const loadBalancerTopologySchema = arr(
  obj({
    uuid: s("string"),
    name: s("string"),
    protocol: n("string"),
    vips: arr(
      obj({
        vip: s("string"),
        backends: arr(
          obj({
            backend: s("string"),
            ip: s("string"),
            port: n("integer"),
            status: { ...n("string"), description: "Service_Monitor status; null without a health check" },
          }),
        ),
      }),
    ),
    health_checks: s("integer"),
    used_by: arr(
      obj({ kind: { enum: ["logical_switch", "logical_router"] }, uuid: s("string"), name: s("string") }),
    ),
    options: stringMap,
  }),
);
