-- The size schemas of the registered platform. Each names the members a size must carry and admits
-- further members (additionalProperties is left open). Numbers are JSON numbers; counts are integers.
INSERT INTO "resource_types" ("platform", "resource_type", "size_schema") VALUES
('platform_a', 'instance', '{
  "type": "object",
  "required": ["vcpus", "ram_gb", "disk_gb", "flavor"],
  "properties": {
    "vcpus": {"type": "integer", "minimum": 0},
    "ram_gb": {"type": "number", "minimum": 0},
    "disk_gb": {"type": "number", "minimum": 0},
    "flavor": {"type": "string", "minLength": 1}
  }
}'::jsonb),
('platform_a', 'volume', '{
  "type": "object",
  "required": ["size_gb", "type"],
  "properties": {
    "size_gb": {"type": "number", "minimum": 0},
    "type": {"type": "string", "minLength": 1}
  }
}'::jsonb),
('platform_a', 'floating_ip', '{
  "type": "object",
  "required": ["ip_version"],
  "properties": {
    "ip_version": {"type": "integer", "enum": [4, 6]}
  }
}'::jsonb),
('platform_a', 'image', '{
  "type": "object",
  "required": ["size_gb"],
  "properties": {
    "size_gb": {"type": "number", "minimum": 0}
  }
}'::jsonb),
('platform_a', 'loadbalancer', '{
  "type": "object",
  "required": ["listeners", "pools"],
  "properties": {
    "listeners": {"type": "integer", "minimum": 0},
    "pools": {"type": "integer", "minimum": 0}
  }
}'::jsonb)
ON CONFLICT ("platform", "resource_type") DO NOTHING;
