CREATE TABLE custodian_snapshots (stream text PRIMARY KEY, revision bigint NOT NULL, state text NOT NULL)
