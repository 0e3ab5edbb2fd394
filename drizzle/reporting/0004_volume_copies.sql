-- Size schemas of cinder's volume snapshots and backups (decision 281), resource types of their own:
-- both are sized in GiB as cinder reports them (a snapshot by its volume's size at the snapshot, a
-- backup by the size of the volume it copies). Further members are admitted, as for the other pairs.
INSERT INTO "resource_types" ("platform", "resource_type", "size_schema") VALUES
('platform_a', 'volume_snapshot', '{
  "type": "object",
  "required": ["size_gb"],
  "properties": {
    "size_gb": {"type": "number", "minimum": 0}
  }
}'::jsonb),
('platform_a', 'volume_backup', '{
  "type": "object",
  "required": ["size_gb"],
  "properties": {
    "size_gb": {"type": "number", "minimum": 0}
  }
}'::jsonb)
ON CONFLICT ("platform", "resource_type") DO NOTHING;
