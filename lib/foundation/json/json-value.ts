/** A value JSON can carry, and an object of them: the plain data every boundary of ours reads and writes. */
export type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };
export type JsonObject = { [key: string]: JsonValue };
