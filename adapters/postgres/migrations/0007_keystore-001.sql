CREATE TABLE custodian_subject_keys (
  tenant text NOT NULL,
  subject text NOT NULL,
  wrapped bytea NOT NULL,
  PRIMARY KEY (tenant, subject)
);
CREATE TABLE custodian_data_keys (
  key_id uuid PRIMARY KEY,
  tenant text NOT NULL,
  plugin text NOT NULL,
  scope text NOT NULL,
  record_key text NOT NULL,
  owner text NOT NULL,
  wrapped bytea NOT NULL,
  UNIQUE (tenant, plugin, scope, record_key, owner)
);
