/**
 * The one three-way comparison for `sort`: by `<` and `>`, so text orders by UTF-16 code unit (as our
 * canonical JSON and the wire formats do), never by locale as `localeCompare` would; numbers and
 * bigints by value.
 */
export function compare<T extends string | number | bigint>(a: T, b: T): -1 | 0 | 1 {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** A comparator of items by one key of each: `rows.sort(compareBy((r) => r._uuid))`. */
export function compareBy<T>(key: (item: T) => string | number | bigint): (a: T, b: T) => number {
  return (a, b) => compare(key(a), key(b));
}
