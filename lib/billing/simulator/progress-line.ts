/**
 * A one-line progress display for long generations, redrawn in place on a terminal and silent
 * otherwise, so pipes and CI logs get no carriage-return noise.
 */
export function progressLine(stream: { isTTY?: boolean; write(text: string): unknown }): {
  update: (text: string) => void;
  done: () => void;
} {
  if (stream.isTTY !== true) return { update: () => {}, done: () => {} };
  const started = performance.now();
  let shown = false;
  return {
    update(text) {
      const seconds = ((performance.now() - started) / 1000).toFixed(1);
      stream.write(`\r\x1b[2K${seconds}s ${text}`);
      shown = true;
    },
    done() {
      if (shown) stream.write("\r\x1b[2K");
    },
  };
}
