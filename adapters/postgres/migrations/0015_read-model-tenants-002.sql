ALTER TABLE rm_tenants ADD COLUMN IF NOT EXISTS removed_ms bigint
