-- The appends that came before the one commit path (custodian_commit, 0006): nothing calls them
-- any more, and a second way to write the log is a way around its checks.
DROP FUNCTION IF EXISTS custodian_append_guarded;
DROP FUNCTION IF EXISTS custodian_append_many;
DROP FUNCTION IF EXISTS custodian_append;
DROP FUNCTION IF EXISTS custodian_append_from;
