// Preloaded by `bun test` (bunfig.toml): filled in by the harness.
export {};
