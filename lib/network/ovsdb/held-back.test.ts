import { describe, expect, test } from "bun:test";
import { hostSocketBuffers, mayBeFullSocket } from "./held-back.ts";

const linux = { unixSendBytes: 212_992, tcpReceiveBytes: 131_072 };

describe("mayBeFullSocket", () => {
  test("unix: the reads measured when ovsdb-server held updates back count as full, smaller ones not", () => {
    // 37,856 to 39,938 bytes of 181- to 226-byte updates were unread when the server stopped sending.
    expect(mayBeFullSocket("unix", 37_856, 169, linux)).toBe(true);
    expect(mayBeFullSocket("unix", 39_938, 209, linux)).toBe(true);
    // A third of that is a client a little behind, not a full socket.
    expect(mayBeFullSocket("unix", 13_000, 64, linux)).toBe(false);
    // One large message counts by its size.
    expect(mayBeFullSocket("unix", 110_000, 3, linux)).toBe(true);
    expect(mayBeFullSocket("unix", 90_000, 3, linux)).toBe(false);
  });

  test("tcp: a third of the receive buffer's default", () => {
    expect(mayBeFullSocket("tcp", 108_066, 470, linux)).toBe(true);
    expect(mayBeFullSocket("tcp", 43_690, 200, linux)).toBe(false);
    expect(mayBeFullSocket("tcp", 43_691, 200, linux)).toBe(true);
  });
});

describe("hostSocketBuffers", () => {
  test("reads /proc, and falls back to Linux's defaults", () => {
    const files: Record<string, string> = {
      "/proc/sys/net/core/wmem_default": "65536\n",
      "/proc/sys/net/ipv4/tcp_rmem": "4096\t87380\t6291456\n",
    };
    expect(hostSocketBuffers((path) => files[path] ?? "")).toEqual({
      unixSendBytes: 65_536,
      tcpReceiveBytes: 87_380,
    });
    expect(
      hostSocketBuffers(() => {
        throw new Error("no /proc");
      }),
    ).toEqual(linux);
  });
});
