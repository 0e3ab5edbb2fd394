/** Where a scenario run says what it is doing: a live line per stage, then the stage's report line. */
export interface StageProgress {
  /** A stage starts: on a terminal a live line shows it with its running time. */
  begin(stage: string): void;
  /** The running stage says what it does now (on a terminal only). */
  update(text: string): void;
  /** The stage ended: its report line replaces the live one. */
  end(line: string): void;
  /** A line of the report outside any stage. */
  print(line: string): void;
}

const frames = ["|", "/", "-", "\\"];

/**
 * On a terminal, a live line redrawn in place every 100 ms (`- meter 3.1 s  engine run`); otherwise
 * plain lines only, one per stage as it ends, so CI logs carry no carriage returns.
 */
export function stageProgress(stream: { isTTY?: boolean; write(text: string): unknown }): StageProgress {
  const tty = stream.isTTY === true;
  let timer: ReturnType<typeof setInterval> | undefined;
  let stage = "";
  let doing = "";
  let started = 0;
  let frame = 0;
  const draw = () => {
    const seconds = ((performance.now() - started) / 1000).toFixed(1);
    stream.write(`\r\x1b[2K${frames[frame++ % frames.length]} ${stage} ${seconds} s  ${doing}`);
  };
  const clear = () => {
    if (timer === undefined) return;
    clearInterval(timer);
    timer = undefined;
    stream.write("\r\x1b[2K");
  };
  return {
    begin(name) {
      clear();
      stage = name;
      doing = "";
      started = performance.now();
      if (!tty) return;
      draw();
      timer = setInterval(draw, 100);
      timer.unref?.();
    },
    update(text) {
      doing = text;
    },
    end(line) {
      clear();
      stream.write(`${line}\n`);
    },
    print(line) {
      clear();
      stream.write(`${line}\n`);
    },
  };
}
