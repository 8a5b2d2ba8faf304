import { describe, it } from 'vitest';
import { auditorKeysDecider, type AuditorKeyEvent } from '../../../domain/auditors/keys.ts';
import { specify } from '../../support/decider.ts';

const { given } = specify(auditorKeysDecider);
const issue = (id: string) => ({ tenant: 'acme', id, key_sha256: 'ab'.repeat(32), now: 1_000 });
const issued = (id: string): AuditorKeyEvent => ({ type: 'AuditorKeyIssued', data: { tenant: 'acme', id, key_sha256: 'ab'.repeat(32), issued_ms: 1_000 } });

describe('auditor keys decider', () => {
  it('given no keys, when one is issued, then only its digest is recorded', () => {
    given([])
      .when(issue('k1'))
      .then([issued('k1')]);
  });

  it('given a key, when another id is issued, then it is recorded beside it', () => {
    given([issued('k1')])
      .when(issue('k2'))
      .then([issued('k2')]);
  });

  it('given a key, when the same id is issued again, then it is refused', () => {
    given([issued('k1')])
      .when(issue('k1'))
      .then({ error: 'already_exists', what: 'auditor key' });
  });
});
