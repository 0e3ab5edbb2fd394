/** A resource's identity in the projection: one row per (cloud, resource_type, resource_id). */
export interface ResourceKey {
  cloud: string;
  resource_type: string;
  resource_id: string;
}

/** An unambiguous string for maps and for the advisory lock's hash (JSON escapes any separator). */
export function resourceKeyString(key: ResourceKey): string {
  return JSON.stringify([key.cloud, key.resource_type, key.resource_id]);
}
