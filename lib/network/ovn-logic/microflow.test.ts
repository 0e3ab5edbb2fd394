import { describe, expect, test } from "bun:test";
import { parseExpr } from "./expr.ts";
import { formatFlow } from "./flow-format.ts";
import { findInport, parseMicroflow } from "./microflow.ts";
import { symtab } from "./symbols.ts";

const ctx = { symtab };
const lookup = (name: string) => (name === "p1" ? 1 : undefined);

describe("microflows", () => {
  test("every pinned field and its prerequisites are set", () => {
    const flow = parseMicroflow(
      'inport == "p1" && eth.src == 00:00:00:00:10:01 && eth.dst == 00:00:00:00:10:02 && ip4.src == 10.0.0.11 && ip4.dst == 10.0.0.12 && ip.ttl == 64 && tcp.dst == 80',
      ctx,
      lookup,
    );
    expect(formatFlow(flow)).toBe(
      "tcp,reg14=0x1,vlan_tci=0x0000,dl_src=00:00:00:00:10:01,dl_dst=00:00:00:00:10:02,nw_src=10.0.0.11,nw_dst=10.0.0.12,nw_tos=0,nw_ecn=0,nw_ttl=64,nw_frag=no,tp_src=0,tp_dst=80,tcp_flags=0",
    );
    expect(
      formatFlow(
        parseMicroflow(
          'inport == "p1" && arp.op == 1 && arp.spa == 10.0.0.1 && arp.tpa == 10.0.0.2',
          ctx,
          lookup,
        ),
      ),
    ).toBe(
      "arp,reg14=0x1,vlan_tci=0x0000,dl_src=00:00:00:00:00:00,dl_dst=00:00:00:00:00:00,arp_spa=10.0.0.1,arp_tpa=10.0.0.2,arp_op=1,arp_sha=00:00:00:00:00:00,arp_tha=00:00:00:00:00:00",
    );
  });

  test("ambiguous and contradictory descriptions are refused", () => {
    expect(() => parseMicroflow('inport == "p1" && tcp.dst == 80', ctx, lookup)).toThrow(
      "Constraints are ambiguous.",
    );
    expect(() => parseMicroflow("ip4 && ip6", ctx, lookup)).toThrow("Constraints are contradictory.");
    expect(() => parseMicroflow('inport == "nobody" && ip4', ctx, lookup)).toThrow("unknown logical port");
  });

  test("the inport names the datapath", () => {
    expect(findInport(parseExpr('inport == "p1" && ip4', ctx))).toBe("p1");
    expect(() => findInport(parseExpr("ip4", ctx))).toThrow("does not match on inport");
  });
});
