import { describe, expect, test } from "bun:test";
import { formatActions } from "./action-format.ts";
import { parseActions } from "./action-parser.ts";
import { evaluate } from "./expr.ts";
import { ETH_TYPE_IP, emptyFlow } from "./flow.ts";
import { OvnSyntaxError } from "./lexer.ts";
import { symtab } from "./symbols.ts";

const ctx = { symtab, pipeline: "ingress" as const, table: 10 };
const canonical = (text: string) => formatActions(parseActions(text, ctx).actions);

describe("actions print as ovnacts_format prints them", () => {
  test("northd's actions, comments and spacing normalised", () => {
    const cases: [string, string][] = [
      ["next;", "next;"],
      ["next(pipeline=egress, table=3);", "next(pipeline=egress, table=3);"],
      ["next(12);", "next(12);"],
      ["drop;", "drop;"],
      ['outport = "p1"; output;', 'outport = "p1"; output;'],
      [
        "eth.dst = eth.src; eth.src = 00:00:00:00:11:02; arp.op = 2; /* ARP reply */ arp.tha = arp.sha;",
        "eth.dst = eth.src; eth.src = 00:00:00:00:11:02; arp.op = 2; arp.tha = arp.sha;",
      ],
      ["reg0[15] = check_in_port_sec(); next;", "reg0[15] = check_in_port_sec(); next;"],
      ["ct_commit { ct_mark.blocked = 1; };", "ct_commit { ct_mark.blocked = 1; };"],
      ["ct_commit;", "ct_commit;"],
      ["ct_lb_mark(backends=10.0.0.11:80,10.0.0.12:80);", "ct_lb_mark(backends=10.0.0.11:80,10.0.0.12:80);"],
      ["ct_lb_mark(backends=[fd00::11]:80);", "ct_lb_mark(backends=[fd00::11]:80);"],
      [
        "ip.ttl--; reg8[0..15] = 0; xxreg0 = ip6.dst; flags.loopback = 1; next;",
        "ip.ttl--; reg8[0..15] = 0; xxreg0 = ip6.dst; flags.loopback = 1; next;",
      ],
      [
        "reg9[2] = lookup_arp(inport, arp.spa, arp.sha); next;",
        "reg9[2] = lookup_arp(inport, arp.spa, arp.sha); next;",
      ],
      ["get_arp(outport, reg0); next;", "get_arp(outport, reg0); next;"],
      ["ct_snat(172.16.0.111);", "ct_snat(172.16.0.111);"],
      ["ct_dnat(10.0.0.5,100-200);", "ct_dnat(10.0.0.5,100-200);"],
      [
        "icmp4 {eth.dst <-> eth.src; icmp4.type = 11; /* Time exceeded */ icmp4.code = 0; ip4.dst = ip4.src; output; };",
        "icmp4 { eth.dst <-> eth.src; icmp4.type = 11; icmp4.code = 0; ip4.dst = ip4.src; output; };",
      ],
      [
        "reg1 = 0x0a; reg2 = 0x100/0xff00; xxreg1 = fd00::100;",
        "reg1 = 0xa; reg2 = 0x100/0xff00; xxreg1 = fd00::100;",
      ],
      [
        'log(name="acl1", severity=warning, verdict=drop); ',
        'log(name="acl1", verdict=drop, severity=warning);',
      ],
      [
        "reg0 = 0; reject { /* implicit */ outport <-> inport; next(pipeline=ingress,table=25); };",
        "reg0 = 0; reject { outport <-> inport; next(25); };",
      ],
      [
        'trigger_event(event = "empty_lb_backends", vip = "10.0.0.1:80");',
        'trigger_event(event = "empty_lb_backends", vip = "10.0.0.1:80");',
      ],
    ];
    for (const [stored, printed] of cases) expect(canonical(stored)).toBe(printed);
  });

  test("actions add their prerequisites to the match", () => {
    const { prereqs } = parseActions("ip4.dst = 10.0.0.1; ct_next;", ctx);
    const flow = emptyFlow();
    expect(prereqs === undefined ? true : evaluate(prereqs, flow, () => undefined)).toBe(false);
    flow.f.dl_type = ETH_TYPE_IP;
    expect(prereqs === undefined ? true : evaluate(prereqs, flow, () => undefined)).toBe(true);
  });

  test("refusals", () => {
    expect(() => parseActions("ct.est = 1;", ctx)).toThrow(OvnSyntaxError);
    expect(() => parseActions("ip4 = 1;", ctx)).toThrow("Predicate symbol ip4 used where lvalue required.");
    expect(() => parseActions("next(pipeline=egress, table=29);", ctx)).toThrow(
      "cannot advance beyond table 28",
    );
    expect(() => parseActions("eth.src = 00:00:00:00:00:01", ctx)).toThrow(OvnSyntaxError);
    expect(() => parseActions("frobnicate;", ctx)).toThrow(OvnSyntaxError);
  });
});
