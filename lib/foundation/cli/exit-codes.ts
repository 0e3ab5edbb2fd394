/**
 * The exit status of every program of ours (decision 47; the table in the README). Where the spec
 * states a program's status, it rules: the Reporting API and the collector exit 1 on any failure, and
 * `simulator compare` exits 1 when the bill differs and on every other failure (docs/simulator.md#exit-status).
 * - `ok`: done; a comparison or a scenario that agrees; `--help`, `--version`; a server or a held
 *   stack that was asked to stop and stopped.
 * - `refused`: a flag, a variable, an input file or the state of the data says no; nothing changed.
 * - `differs`: the work was done and its result disagrees with what it is held against
 *   (`simulator compare`, a scenario's checks): 1, as the spec gives compare.
 * - `fault`: a failure of a program the spec gives 1 for every failure (the Reporting API, the
 *   collector, the simulator) or of a server like them (netview).
 * - `failed`: a command could not do its work: a part not built yet, a database or broker that is not
 *   there, an internal error.
 * - `interrupted`: Ctrl-C or SIGTERM ended a scenario run before it finished (128 + SIGINT).
 */
export const exitCodes = { ok: 0, refused: 1, differs: 1, fault: 1, failed: 2, interrupted: 130 } as const;
