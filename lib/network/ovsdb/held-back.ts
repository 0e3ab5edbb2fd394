/**
 * When ovsdb-server may have held updates back from a session (decision 372). The server sends a
 * session no update while the session has unsent output, and then sends one update per row for
 * every transaction of that time, merged. It has unsent output only once the socket is full, and
 * the first read after that returns at least what a full socket holds (one read takes up to 512
 * KiB): so a read smaller than that cannot be the first after a held-back stretch, and only a
 * larger one opens a window in which a merged update may come.
 *
 * What a full socket holds, from the kernel's accounting (Linux 6):
 * - unix: the unread messages' kernel memory reaches the sender's buffer (net.core.wmem_default;
 *   ovsdb-server sets no SO_SNDBUF). Each write of s bytes takes one buffer of kmalloc's size for
 *   s + 320 (rounded up to a power of two) plus a 232-byte header: at most 2s + 872. A read of
 *   `bytes` in `pieces` messages (or parts of one) held at most 2 * bytes + 872 * pieces of it.
 *   Measured: 200-byte updates fill the default 208 KiB with 38 KiB of text.
 * - TCP (and TLS over it): the reader's receive queue fills its window, a share of
 *   net.ipv4.tcp_rmem's default (128 KiB: 108 KiB of text measured); counted at a third of it.
 */
import { readFileSync } from "node:fs";

export interface SocketBuffers {
  /** net.core.wmem_default: the send buffer of a unix socket. */
  unixSendBytes: number;
  /** The default of net.ipv4.tcp_rmem: a TCP socket's starting receive buffer. */
  tcpReceiveBytes: number;
}

export type Transport = "unix" | "tcp";

/** Could a read of `bytes` in `pieces` messages (or parts of them) be all that a full socket held? */
export function mayBeFullSocket(
  transport: Transport,
  bytes: number,
  pieces: number,
  buffers: SocketBuffers,
): boolean {
  if (transport === "unix") return 2 * bytes + 872 * pieces >= buffers.unixSendBytes;
  return bytes >= buffers.tcpReceiveBytes / 3;
}

const linuxDefaults: SocketBuffers = { unixSendBytes: 212_992, tcpReceiveBytes: 131_072 };

/** This host's buffers, or Linux's defaults where /proc does not say. */
export function hostSocketBuffers(
  read: (path: string) => string = (p) => readFileSync(p, "utf8"),
): SocketBuffers {
  const value = (path: string, field: number, fallback: number) => {
    try {
      const n = Number(read(path).trim().split(/\s+/)[field]);
      return Number.isFinite(n) && n > 0 ? n : fallback;
    } catch {
      return fallback;
    }
  };
  return {
    unixSendBytes: value("/proc/sys/net/core/wmem_default", 0, linuxDefaults.unixSendBytes),
    tcpReceiveBytes: value("/proc/sys/net/ipv4/tcp_rmem", 1, linuxDefaults.tcpReceiveBytes),
  };
}
