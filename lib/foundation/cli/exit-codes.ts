/**
 * The exit status of every program of ours (decision 47; the table in the README):
 * - `ok`: done; a comparison or a scenario that agrees; `--help`, `--version`; a server or a held
 *   stack that was asked to stop and stopped.
 * - `refused`: a flag, a variable, an input file or the state of the data says no; nothing changed.
 * - `failed`: the work could not be done: a part not built yet, a database, broker or port that is not
 *   there, an internal error.
 * - `differs`: the work was done and its result disagrees with what it is held against
 *   (`simulator compare`, a scenario's checks).
 * - `interrupted`: Ctrl-C or SIGTERM ended a run before it finished (128 + SIGINT, as shells report it).
 */
export const exitCodes = { ok: 0, refused: 1, failed: 2, differs: 3, interrupted: 130 } as const;
