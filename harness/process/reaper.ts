import { type ChildProcess, spawn } from "node:child_process";

// A detached shell that outlives the harness process: once that process is gone (even SIGKILLed,
// when no exit handler runs) and its root dir still exists, it stops the process groups listed in the
// manifest and removes the root dir. A clean stop removes the root dir first, and the reaper then
// exits by itself. Liveness is read from /proc because a dead parent that nobody has reaped yet is a
// zombie that still answers `kill -0`.
const script = `
parent=$1; root=$2; manifest=$3
trap '' INT HUP
alive() { [ -r "/proc/$parent/status" ] && ! grep -q '^State:[[:space:]]*[ZX]' "/proc/$parent/status"; }
while alive; do
  [ -d "$root" ] || exit 0
  sleep 0.3
done
[ -d "$root" ] || exit 0
signal_groups() {
  [ -f "$manifest" ] || return 0
  while read -r kind id sig; do
    [ "$kind" = group ] && kill -s "$1" -- "-$id" 2>/dev/null
  done < "$manifest"
  return 0
}
groups_alive() {
  [ -f "$manifest" ] || return 1
  while read -r kind id sig; do
    [ "$kind" = group ] && ps -o stat= -g "$id" 2>/dev/null | grep -q '^[^Z]' && return 0
  done < "$manifest"
  return 1
}
if [ -f "$manifest" ]; then
  while read -r kind id sig; do
    [ "$kind" = group ] && kill -s "$sig" -- "-$id" 2>/dev/null
  done < "$manifest"
fi
i=0
while groups_alive && [ $i -lt 10 ]; do sleep 0.2; i=$((i+1)); done
signal_groups KILL
i=0
while groups_alive && [ $i -lt 20 ]; do sleep 0.2; i=$((i+1)); done
rm -rf "$root"
`;

/** Starts the reaper for `root`, watching process `parentPid`; `manifest` lists `group <pgid> <signal>` lines. */
export function startReaper(parentPid: number, root: string, manifest: string): ChildProcess {
  const child = spawn("sh", ["-c", script, "svc-harness-reaper", String(parentPid), root, manifest], {
    detached: true,
    stdio: "ignore",
  });
  child.unref();
  return child;
}
