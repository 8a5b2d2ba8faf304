CREATE TABLE IF NOT EXISTS rm_revocations (
  tenant text NOT NULL, epoch int NOT NULL, n int NOT NULL, revocation jsonb NOT NULL,
  PRIMARY KEY (tenant, epoch, n)
);
