import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import { annotate, evaluate, negate, parseExpr, simplify } from "./expr.ts";
import { ETH_TYPE_ARP, ETH_TYPE_IP, ETH_TYPE_IPV6, emptyFlow, type Flow, IPPROTO_TCP } from "./flow.ts";
import { OvnSyntaxError } from "./lexer.ts";
import { symtab } from "./symbols.ts";

const ports = new Map([
  ["p1", 1],
  ["p2", 2],
]);
const lookup = (name: string) => ports.get(name);
const sets = {
  symtab,
  addressSets: new Map([["clients", ["10.1.0.0/24", "10.0.0.13", "not-an-address"]]]),
  portGroups: new Map([["7_web", ["p1", "p2"]]]),
  dpKey: 7,
};

function tcp4(overrides: Partial<Flow["f"]> = {}, inport = 1): Flow {
  const flow = emptyFlow();
  Object.assign(
    flow.f,
    {
      dl_type: ETH_TYPE_IP,
      nw_proto: IPPROTO_TCP,
      nw_src: 0x0a01000bn,
      nw_dst: 0x0a00000cn,
      tp_dst: 80n,
      nw_ttl: 64n,
    },
    overrides,
  );
  flow.regs[14] = BigInt(inport);
  return flow;
}

const holds = (text: string, flow: Flow) => evaluate(annotate(parseExpr(text, sets), symtab), flow, lookup);

describe("expression evaluation", () => {
  test("fields, subfields, masks, sets and relational tests", () => {
    const flow = tcp4();
    expect(holds("ip4.src == 10.1.0.0/16 && tcp.dst == {22, 80}", flow)).toBe(true);
    expect(holds("ip4.src == 10.0.0.0/16", flow)).toBe(false);
    expect(holds("tcp.dst < 1024 && tcp.dst >= 80 && 1 <= tcp.dst <= 100", flow)).toBe(true);
    expect(holds("tcp.dst[0..3] == 0", flow)).toBe(true);
    expect(holds("ip4.src != 10.1.0.11", flow)).toBe(false);
    expect(holds('reg9 == 0 && inport == "p1"', flow)).toBe(true);
  });

  test("prerequisites: a field test is false on a packet without that header", () => {
    const arp = emptyFlow();
    arp.f.dl_type = ETH_TYPE_ARP;
    expect(holds("tcp.dst != 80", arp)).toBe(false);
    expect(holds("ip4.src != 10.0.0.1", arp)).toBe(false);
    // A negated predicate negates its expansion, prerequisites included.
    expect(holds("!ip4.mcast", arp)).toBe(true);
    const v6 = emptyFlow();
    v6.f.dl_type = ETH_TYPE_IPV6;
    expect(holds("ip && ip6 && !ip4.mcast", v6)).toBe(true);
  });

  test("address sets and port groups expand; unknown ports never match", () => {
    expect(holds("ip4.src == $clients", tcp4())).toBe(true);
    expect(holds("ip4.src == $clients", tcp4({ nw_src: 0x0a00000bn }))).toBe(false);
    expect(holds("inport == @web", tcp4({}, 2))).toBe(true);
    expect(holds('inport == "ghost"', tcp4())).toBe(false);
  });

  test("ct.* bits need ct.trk", () => {
    const flow = tcp4({ ct_state: 0b10n });
    expect(holds("ct.est", flow)).toBe(false);
    flow.f.ct_state |= 0b100000n;
    expect(holds("ct.est && !ct.new && ct_state[5] == 1", flow)).toBe(true);
  });

  test("simplify folds what ovn-trace folds", () => {
    const fold = (text: string) => simplify(annotate(parseExpr(text, sets), symtab), () => true);
    expect(fold("1")).toEqual({ t: "bool", b: true });
    expect(fold("ip4.dst == 0.0.0.0/0 && tcp.dst >= 0").t).not.toBe("bool");
    expect(fold('is_chassis_resident("p1") && 1')).toEqual({ t: "bool", b: true });
  });

  test("negation flips the answer for any field test", () => {
    const fields = ["tcp.dst", "ip.ttl", "reg0", "eth.type"] as const;
    fc.assert(
      fc.property(
        fc.constantFrom(...fields),
        fc.integer({ min: 0, max: 255 }),
        fc.integer({ min: 0, max: 65535 }),
        (field, v, packet) => {
          const e = annotate(parseExpr(`${field} == ${v}`, sets), symtab);
          const flow = tcp4({
            tp_dst: BigInt(packet),
            nw_ttl: BigInt(packet & 255),
            dl_type: field === "eth.type" ? BigInt(packet) : ETH_TYPE_IP,
          });
          flow.regs[0] = BigInt(packet);
          // The prerequisites stay outside a field test's negation, so compare under them.
          const pre = annotate(
            parseExpr(field === "tcp.dst" ? "tcp" : field === "ip.ttl" ? "ip" : "1", sets),
            symtab,
          );
          if (!evaluate(pre, flow, lookup)) return true;
          return evaluate(negate(e), flow, lookup) === !evaluate(e, flow, lookup);
        },
      ),
    );
  });
});

describe("expression errors", () => {
  test("are OVN's refusals", () => {
    const refuse = (text: string, message: string) => {
      expect(() => parseExpr(text, sets)).toThrow(OvnSyntaxError);
      expect(() => parseExpr(text, sets)).toThrow(message);
    };
    refuse("ip4.src", "Explicit `!= 0' is required");
    refuse("tcp.dst > {1, 2}", "Only == and != operators may be used with value sets.");
    refuse("eth.type > 5", "Only == and != operators may be used with nominal field eth.type.");
    refuse("ip4 && ip6 || tcp", "&& and || must be parenthesized when used together.");
    refuse("!ip4.src == 1", "Missing parentheses around operand of !.");
    refuse("ip.ttl == 256", "9-bit constant is not compatible with 8-bit field ip.ttl.");
    refuse("ip4.src == $nosuch", "expecting address set name");
    refuse("inport == 1", "String field inport is not compatible with integer constant.");
    refuse("!tcp", "Nominal predicate tcp may only be tested positively");
    refuse('inport != "p1"', "Nominal field inport may only be tested for equality");
    refuse("reg14 == 1", "expecting field name");
  });
});
