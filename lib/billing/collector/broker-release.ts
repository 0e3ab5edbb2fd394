/**
 * The broker release a quorum queue needs (docs/collector.md#the-queue-and-the-exchanges): 4.0 or newer, read from the `version`
 * the broker announces in its connection greeting. An unreadable release is refused too: declaring a
 * quorum queue on a broker that cannot say what it is would risk the 3.x behaviour (decision 265).
 */

const quorumRelease = { major: 4, minor: 0 };

/** Null when `version` is a release that carries quorum queues as we declare them, else the refusal. */
export function quorumRefusal(version: unknown): string | null {
  const text = typeof version === "string" ? version.trim() : "";
  const match = /^(\d+)\.(\d+)(?:[.\-+].*)?$/.exec(text);
  const need = `SVC_OSC_QUEUE_TYPE=quorum needs RabbitMQ ${quorumRelease.major}.${quorumRelease.minor} or newer`;
  const instead = "set SVC_OSC_QUEUE_TYPE=classic or upgrade the broker";
  if (match === null) {
    const shown = text === "" ? "no release" : JSON.stringify(text.slice(0, 40));
    return `${need}; the broker announces ${shown}, which cannot be read as a release: ${instead}`;
  }
  const major = Number(match[1]);
  const minor = Number(match[2]);
  if (major > quorumRelease.major || (major === quorumRelease.major && minor >= quorumRelease.minor))
    return null;
  return `${need}; the broker runs ${major}.${minor}: ${instead}`;
}
