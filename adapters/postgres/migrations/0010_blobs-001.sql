CREATE TABLE custodian_blobs (
  tenant text NOT NULL,
  tree text NOT NULL,
  sha256 text NOT NULL,
  size bigint NOT NULL,
  chunks int NOT NULL,
  file_key jsonb NOT NULL,
  data_subject text,
  stored_ms bigint NOT NULL,
  PRIMARY KEY (tenant, tree, sha256)
);
CREATE TABLE custodian_blob_chunks (
  tenant text NOT NULL,
  tree text NOT NULL,
  sha256 text NOT NULL,
  idx int NOT NULL,
  bytes bytea NOT NULL,
  PRIMARY KEY (tenant, tree, sha256, idx)
);
ALTER TABLE custodian_blob_chunks ALTER COLUMN bytes SET STORAGE EXTERNAL;
