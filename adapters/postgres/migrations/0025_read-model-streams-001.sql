-- The log stream each job's and tenant's row is built from, written by the projections as
-- domain/shared/names.ts names it: the admission reads those streams' heads through these
-- columns, so no query spells a stream name. Rows made before are filled once, with the names
-- the log had when this migration ran.
ALTER TABLE rm_jobs ADD COLUMN stream text;
UPDATE rm_jobs SET stream = 'job:' || tenant || ':' || id;
ALTER TABLE rm_jobs ALTER COLUMN stream SET NOT NULL;
ALTER TABLE rm_tenants ADD COLUMN stream text;
UPDATE rm_tenants SET stream = 'tenant:' || id;
ALTER TABLE rm_tenants ALTER COLUMN stream SET NOT NULL;
