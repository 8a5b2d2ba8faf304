-- Where each tenant lives when tenants are placed on several databases (CUSTODIAN_DATABASES):
-- kept in the control database, assigned under the placement advisory lock. `moving_to` marks a
-- move under way (the tenant's writes pause); `moved_from` the database a finished move left
-- the old copy in, until that copy is removed. Unused (empty) with one database.
CREATE TABLE custodian_placement (
  tenant text PRIMARY KEY,
  database text NOT NULL,
  placed_ms bigint NOT NULL,
  moving_to text,
  moved_from text
);
