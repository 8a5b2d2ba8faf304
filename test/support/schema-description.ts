import type pg from 'pg';

/**
 * A database's schema as text, one line per table column, index, sequence and function (its
 * body by digest, whitespace aside: a body re-indented is the same function), sorted: what two databases must agree on to be the same schema. The
 * migration ledger's rows are data, not schema, and are left out.
 */
export const describeSchema = async (pool: pg.Pool): Promise<string> => {
  const { rows } = await pool.query<{ line: string }>(`
    SELECT 'column ' || table_name || '.' || column_name || ' ' || data_type || CASE WHEN is_nullable = 'NO' THEN ' not null' ELSE '' END
           || coalesce(' default ' || column_default, '') AS line
      FROM information_schema.columns WHERE table_schema = current_schema()
    UNION ALL
    SELECT 'index ' || indexname || ': ' || indexdef FROM pg_indexes WHERE schemaname = current_schema()
    UNION ALL
    SELECT 'sequence ' || sequence_name FROM information_schema.sequences WHERE sequence_schema = current_schema()
    UNION ALL
    SELECT 'constraint ' || conrelid::regclass::text || ' ' || pg_get_constraintdef(oid) FROM pg_constraint
      WHERE connamespace = current_schema()::regnamespace
    UNION ALL
    SELECT 'function ' || p.proname || '(' || pg_get_function_identity_arguments(p.oid) || ') ' || md5(btrim(regexp_replace(p.prosrc, '\\s+', ' ', 'g'))) FROM pg_proc p
      WHERE p.pronamespace = current_schema()::regnamespace
    ORDER BY 1`);
  return `${rows.map((r) => r.line).join('\n')}\n`;
};
