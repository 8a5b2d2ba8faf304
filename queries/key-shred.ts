/**
 * A record's data keys, shredded after its removal — except a key a version of a later
 * incarnation of that key names: a put that started the record again (on another instance,
 * between the removal and this shred) found the key row still there and sealed under it. Run
 * after the rows were locked `FOR UPDATE` (waiting out any put holding one `FOR SHARE`), so its
 * snapshot sees that put's versions. The records models drop a removed record's versions with
 * its `RecordRemoved`, so any version left naming a key is one written after the removal.
 */
export const SHRED_RECORD_KEYS = `DELETE FROM custodian_data_keys d
  WHERE d.tenant = $1 AND d.plugin = $2 AND d.scope = $3 AND d.record_key = $4
    AND NOT EXISTS (SELECT 1 FROM rm_record_versions v
                    WHERE v.tenant = d.tenant AND v.plugin = d.plugin AND v.scope = d.scope AND v.key = d.record_key
                      AND v.body->>'k' = d.key_id::text)
  RETURNING key_id::text, owner`;
