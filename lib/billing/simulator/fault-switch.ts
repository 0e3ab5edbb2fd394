/** The six fault switches in canonical order (docs/simulator.md#fault-switches); the oracle lists them in this order. */
const faultSwitches = [
  "pre-existing",
  "missing-create",
  "duplicates",
  "reordering",
  "refused-shapes",
  "held-back",
] as const;

export type FaultSwitch = (typeof faultSwitches)[number];

export function isFaultSwitch(name: string): name is FaultSwitch {
  return (faultSwitches as readonly string[]).includes(name);
}

/**
 * Parses `--faults`: a comma list; a name given twice counts once; an unknown name is refused naming
 * the six; `pre-existing` and `missing-create` exclude each other. Returns canonical order.
 */
export function parseFaultSwitches(list: string | undefined): FaultSwitch[] {
  if (list === undefined || list.trim() === "") return [];
  const names = list.split(",").map((n) => n.trim());
  const unknown = names.filter((n) => !isFaultSwitch(n));
  if (unknown.length > 0) {
    throw new RangeError(
      `has unknown fault${unknown.length > 1 ? "s" : ""} ${unknown.map((n) => JSON.stringify(n)).join(", ")}: the fault switches are ${faultSwitches.join(", ")}`,
    );
  }
  const chosen = faultSwitches.filter((f) => names.includes(f));
  if (chosen.includes("pre-existing") && chosen.includes("missing-create")) {
    throw new RangeError("names pre-existing and missing-create, which exclude each other: choose one");
  }
  return chosen;
}

export function canonicalFaultOrder(faults: Iterable<FaultSwitch>): FaultSwitch[] {
  const set = new Set(faults);
  return faultSwitches.filter((f) => set.has(f));
}
