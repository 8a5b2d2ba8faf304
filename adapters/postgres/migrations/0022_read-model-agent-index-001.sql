CREATE TABLE IF NOT EXISTS rm_agent_records (
  tenant text NOT NULL, agent text NOT NULL, collection text NOT NULL, id text NOT NULL, created_ms bigint NOT NULL,
  PRIMARY KEY (tenant, agent, collection, id)
);
CREATE TABLE IF NOT EXISTS rm_agent_index (
  tenant text NOT NULL, agent text NOT NULL, collection text NOT NULL, id text NOT NULL, field text NOT NULL, digest text NOT NULL,
  PRIMARY KEY (tenant, agent, collection, id, field)
);
CREATE INDEX IF NOT EXISTS rm_agent_index_lookup ON rm_agent_index (tenant, agent, collection, field, digest);
