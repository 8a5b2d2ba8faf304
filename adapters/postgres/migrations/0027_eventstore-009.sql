-- Freezes the audit log the projection derived before the line store: every line is copied
-- into custodian_audit_lines at its place (its event's position unknown: null), each tenant's
-- counter starts after its last line, and the derivation's tables go. The events of a log
-- written before this release that the projection had not yet reached were derived just before
-- this migration, by the released projection's code (upgrade step audit-catch-up-001), so no
-- line is ever derived again and the roots signed before stay what they were.
INSERT INTO custodian_audit_lines (tenant, seq, at, kind, job, subject, epoch, record_refs, line)
  SELECT tenant, seq, at, kind, job, subject, epoch, record_refs, line FROM rm_audit;
INSERT INTO custodian_audit_sizes (tenant, size) SELECT tenant, max(seq) + 1 FROM rm_audit GROUP BY tenant;
DROP TABLE rm_audit;
DROP TABLE rm_audit_jobs;
DROP TABLE rm_audit_versions;
DROP TABLE rm_audit_kinds;
