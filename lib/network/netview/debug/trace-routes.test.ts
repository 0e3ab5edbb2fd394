// Issue 16's trace: parity with ovn-trace over the packet corpus (through the API, the text format
// against Debian's ovn-trace on the same SB), the JSON answer for a packet given by its fields, the
// recent traces, and the caller's mistakes.
import { describe, expect, test } from "bun:test";
import { traceCorpus } from "../../../../fixtures/netview/trace-corpus.ts";
import { startDebugFixture } from "../../../../harness/netview/debug-fixture.ts";
import { fixtureForFile } from "../../../../harness/netview/test-support.ts";
import type { TraceView } from "./trace-view.ts";

const fx = fixtureForFile(startDebugFixture);

async function ovnTrace(args: string[]): Promise<string> {
  const child = Bun.spawn(["ovn-trace", `--db=${fx().ovn.sbRemote}`, ...args], {
    stdout: "pipe",
    stderr: "pipe",
  });
  const [out, err, code] = await Promise.all([
    new Response(child.stdout).text(),
    new Response(child.stderr).text(),
    child.exited,
  ]);
  if (code !== 0) throw new Error(`ovn-trace exited ${code}: ${err}`);
  return out;
}

const q = (params: Record<string, string | string[]>) => {
  const search = new URLSearchParams();
  for (const [k, v] of Object.entries(params))
    for (const one of Array.isArray(v) ? v : [v]) search.append(k, one);
  return search.toString();
};

type Trace = TraceView & { id: string; cluster: string };

describe("trace parity with ovn-trace", () => {
  test("the corpus has at least 30 packets of every kind the issue names", () => {
    expect(traceCorpus.length).toBeGreaterThanOrEqual(30);
    const text = traceCorpus.map((c) => c.microflow).join("\n");
    for (const kind of ["arp.op", "ip4", "ip6", "tcp", "udp", "icmp4", "nd.target"])
      expect(text).toContain(kind);
    expect(traceCorpus.some((c) => c.lbDst !== undefined)).toBe(true);
    expect(traceCorpus.some((c) => c.ct !== undefined)).toBe(true);
  });

  test("every stage and the outcome equal ovn-trace's for every packet", async () => {
    const differing: { name: string; ovn: string; netview: string }[] = [];
    for (const packet of traceCorpus) {
      const theirs = await ovnTrace([
        ...(packet.lbDst === undefined ? [] : [`--lb-dst=${packet.lbDst}`]),
        ...(packet.ct ?? []).map((s) => `--ct=${s}`),
        packet.microflow,
      ]);
      const ours = await fx().get(
        `/api/v1/debug/trace?${q({
          microflow: packet.microflow,
          format: "detailed",
          ...(packet.lbDst === undefined ? {} : { lb_dst: packet.lbDst }),
          ...(packet.ct === undefined ? {} : { ct: packet.ct }),
        })}`,
      );
      expect(ours.status).toBe(200);
      if (ours.text !== theirs) differing.push({ name: packet.name, ovn: theirs, netview: ours.text });
    }
    expect(differing).toEqual([]);
  }, 120_000);
});

describe("trace as JSON", () => {
  test("a packet by its fields: addresses from the ports, delivered with every stage", async () => {
    const res = await fx().get(
      `/api/v1/debug/trace?${q({ inport: "dbg-p2", ip_dst: "10.0.0.11", dst_port: "80" })}`,
    );
    expect(res.status).toBe(200);
    const trace = res.body as Trace;
    expect(trace.microflow).toBe(
      'inport == "dbg-p2" && eth.src == 00:00:00:00:10:03 && eth.dst == 00:00:00:00:10:01 && ip4.src == 10.0.0.13 && ip4.dst == 10.0.0.11 && ip.ttl == 64 && tcp.src == 40000 && tcp.dst == 80',
    );
    expect(trace.outcome).toEqual({
      verdict: "delivered",
      delivered: [{ port: "dbg-p0", datapath: "dbg-sw0", type: "" }],
      stopped: [],
    });
    expect(trace.stages.map((s) => `${s.pipeline}/${s.stage}`)).toContain("egress/ls_out_acl");
    expect(trace.stages[0]).toMatchObject({
      datapath: "dbg-sw0",
      pipeline: "ingress",
      table: 0,
      stage: "ls_in_check_port_sec",
    });
    expect(trace.text).toBe(await ovnTrace([trace.microflow]));
  });

  test("a dropped packet names the stage and the ACL that stopped it", async () => {
    const res = await fx().get(
      `/api/v1/debug/trace?${q({ inport: "dbg-p2", ip_dst: "10.0.0.11", dst_port: "22" })}`,
    );
    const trace = res.body as Trace;
    expect(trace.outcome.verdict).toBe("dropped");
    expect(trace.outcome.stopped).toHaveLength(1);
    const stop = trace.outcome.stopped[0];
    expect(stop?.stage?.stage).toBe("ls_out_acl");
    expect(stop?.acl).toMatchObject({
      direction: "to-lport",
      priority: 1001,
      action: "drop",
      match: "outport == @dbg_pg_web && ip4",
      scope: { kind: "port_group", name: "dbg_pg_web" },
    });
  });

  test("ARP, ICMP and UDP by protocol; the cluster prefix answers the same", async () => {
    const arp = (
      await fx().get(`/api/v1/debug/trace?${q({ inport: "dbg-p0", ip_dst: "10.0.0.12", protocol: "arp" })}`)
    ).body as Trace;
    expect(arp.outcome.delivered.map((d) => d.port)).toEqual(["dbg-p0"]);
    const icmp = await fx().get(
      `/api/v1/clusters/default/debug/trace?${q({ inport: "dbg-q0", ip_dst: "10.0.0.13", protocol: "icmp" })}`,
    );
    expect((icmp.body as Trace).outcome.delivered.map((d) => d.port)).toEqual(["dbg-p2"]);
    const nd = (
      await fx().get(`/api/v1/debug/trace?${q({ inport: "dbg-p0", ip_dst: "fd00::12", protocol: "nd" })}`)
    ).body as Trace;
    expect(nd.microflow).toContain("nd.target == fd00::12");
  });

  test("recent traces, newest first, and one by id", async () => {
    const made = (
      await fx().get(`/api/v1/debug/trace?${q({ inport: "dbg-q0", ip_dst: "10.1.0.12", protocol: "udp" })}`)
    ).body as Trace;
    const list = (await fx().get("/api/v1/debug/traces?limit=2")).body as { id: string; verdict: string }[];
    expect(list).toHaveLength(2);
    expect(list[0]?.id).toBe(made.id);
    const one = await fx().get(`/api/v1/debug/traces/${made.id}`);
    expect(one.status).toBe(200);
    expect((one.body as Trace).stages).toEqual(made.stages);
  });
});

describe("trace errors", () => {
  test("caller's mistakes are 400 or 404 with a message", async () => {
    const cases: [string, number, string][] = [
      [q({ inport: "dbg-p0" }), 400, "ip_dst: is required"],
      [q({ inport: "dbg-p0", ip_dst: "10.0.0.999" }), 400, "ip_dst: must be an IPv4 or IPv6 address"],
      [q({ inport: "dbg-p0", ip_dst: "10.0.0.12", eth_src: "zz" }), 400, "eth_src: must be a MAC address"],
      [q({ inport: "nobody", ip_dst: "10.0.0.12" }), 400, 'inport: unknown logical port "nobody"'],
      [q({ inport: "dbg-p0", ip_dst: "fd00::12", protocol: "arp" }), 400, "arp needs IPv4"],
      [q({ inport: "dbg-p0", ip_dst: "10.0.0.12", protocol: "gre" }), 400, "protocol: must be one of"],
      [
        q({ inport: "dbg-p0", ip_dst: "10.0.0.12", dst_port: "70000" }),
        400,
        "dst_port: must be at most 65535",
      ],
      [q({ inport: "dbg-p0", ip_dst: "10.0.0.12", ct: "bogus" }), 400, "unknown connection tracking state"],
      [q({ inport: "dbg-p0", ip_dst: "10.0.0.12", colour: "red" }), 400, "colour: unknown parameter"],
      [q({ microflow: 'inport == "dbg-p0" && tcp.dst == 80' }), 400, "Constraints are ambiguous"],
      [q({ microflow: 'inport == "ghost" && ip4' }), 404, 'unknown port "ghost"'],
      [q({ microflow: "ip4 &&& ip6" }), 400, "error parsing flow"],
      [q({ microflow: 'inport == "dbg-p0" && ip4', datapath: "nowhere" }), 404, 'unknown datapath "nowhere"'],
    ];
    for (const [query, status, message] of cases) {
      const res = await fx().get(`/api/v1/debug/trace?${query}`);
      expect({ query, status: res.status }).toEqual({ query, status });
      expect((res.body as { error: string }).error).toContain(message);
    }
    expect((await fx().get("/api/v1/debug/traces/nope")).status).toBe(404);
    expect((await fx().get("/api/v1/debug/traces?limit=0")).status).toBe(400);
    expect((await fx().get("/api/v1/clusters/nowhere/debug/trace?inport=x")).status).toBe(404);
  });
});
