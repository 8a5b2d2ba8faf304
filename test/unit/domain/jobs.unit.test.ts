import { describe, expect, it } from 'vitest';
import { jobDecider } from '../../../domain/jobs/decide.ts';
import { purposeOfInput } from '../../../domain/jobs/purpose.ts';
import { specify } from '../../support/decider.ts';

import { mint, request, start } from '../../support/jobs.ts';
const { given } = specify(jobDecider);
const started = given([]).when(start()).accepted();

describe('job decider: start', () => {
  it('stores agent, plugin, purpose from the input, subject, labels and the block-0 scopes', () => {
    expect(started.map((e) => e.type)).toEqual(['JobStarted', 'EnvelopeBlockAppended']);
    expect(started[0]!.data).toMatchObject({
      tenant: 'acme',
      job: 'j1',
      run: 1,
      agent: 'scribe',
      plugin: 'notes',
      install_gen: 1,
      purpose: purposeOfInput('summarise this'),
      subject: 'ticket-1',
      data_subject: null,
      labels: ['a', 'b'],
      scopes: [
        'agent:notes/scribe',
        'agent:search/seeker',
        'plugin:notes',
        'plugin:search',
        'tool:mail/send',
        'tool:notes/boot',
        'tool:notes/save',
        'tool:search/find',
      ],
      started_ms: 1000,
    });
  });

  it('takes a named purpose as given, and none as ""', () => {
    const named = given([])
      .when(start({ ...request, input: undefined, purpose: 'routine:nightly' }))
      .accepted();
    expect(named[0]!.data).toMatchObject({ purpose: 'routine:nightly' });
    const none = given([])
      .when(start({ ...request, input: undefined }))
      .accepted();
    expect(none[0]!.data).toMatchObject({ purpose: '' });
  });

  it('hashes a JSON input canonically: key order does not change the purpose', () => {
    expect(purposeOfInput({ a: 1, b: [2, 3] })).toBe(purposeOfInput({ b: [2, 3], a: 1 }));
    expect(purposeOfInput('x')).toBe('2d711642b726b04401627ca9fbac32f5c8530fb1903cc4db02258717921a4881');
  });

  it('refuses input and purpose together, an unknown plugin, an agent the plugin lacks', () => {
    given([])
      .when(start({ ...request, purpose: 'routine:x' }))
      .then(expect.objectContaining({ error: 'invalid', field: 'purpose' }));
    given([])
      .when(start({ ...request, plugin: 'nope' }))
      .then({ error: 'not_found', what: 'plugin', plugin: 'nope' });
    given([])
      .when(start({ ...request, agent: 'ghost' }))
      .then(expect.objectContaining({ error: 'invalid', field: 'agent' }));
  });

  it('answers the same start for a running job with nothing new', () => {
    given(started).when(start(request, 5000)).thenNothing();
  });

  it('refuses a different start under a running job id with what the caller may read', () => {
    const then = given(started)
      .when(start({ ...request, subject: 'other' }))
      .refused();
    expect(then).toMatchObject({ error: 'already_exists', job: { id: 'j1', subject: 'ticket-1', status: 'running' } });
    expect(JSON.stringify(then)).not.toContain('start_digest');
  });

  it('starts a new run when the id is started again after its job ended', () => {
    const ended = given(started).when({ type: 'EndJob', job: 'j1', now: 3000 }).accepted();
    const again = given([...started, ...ended])
      .when(start({ ...request, subject: 'new' }, 4000))
      .accepted();
    expect(again[0]!.data).toMatchObject({ run: 2, subject: 'new', started_ms: 4000 });
  });
});

describe('job decider: calls', () => {
  it('mints a call for a function in the job scopes, steps counting from 1', () => {
    const minted = given(started).when(mint()).accepted();
    expect(minted).toEqual([
      {
        type: 'CallMinted',
        data: expect.objectContaining({ call: 'c1', step: 1, function: 'save', ticket_hash: 'h1', idempotency_key: 'k1', startup: false }),
      },
    ]);
    const next = given([...started, ...minted])
      .when(mint({ call: 'c2', newIdempotencyKey: 'k2' }))
      .accepted();
    expect(next[0]!.data).toMatchObject({ step: 2, idempotency_key: 'k2' });
  });

  it('mints a granted function of another plugin', () => {
    given(started)
      .when(mint({ function: 'search/find' }))
      .accepted();
    given(started)
      .when(mint({ function: 'mail/send' }))
      .accepted();
  });

  it('refuses a function outside the scopes', () => {
    given(started)
      .when(mint({ function: 'mail/read' }))
      .then(expect.objectContaining({ error: 'scope', function: 'mail/read' }));
    given(started)
      .when(mint({ function: 'delete' }))
      .then(expect.objectContaining({ error: 'scope' }));
  });

  it('retries a step: a new ticket, the same idempotency key, the old ticket dead', () => {
    const first = given(started)
      .when(mint({ step: 3 }))
      .accepted();
    const retry = given([...started, ...first])
      .when(mint({ step: 3, call: 'c2', ticketHash: 'h2', newIdempotencyKey: 'other' }))
      .accepted();
    expect(retry).toEqual([
      { type: 'CallEnded', data: expect.objectContaining({ call: 'c1', reason: 'retried' }) },
      { type: 'CallMinted', data: expect.objectContaining({ call: 'c2', step: 3, ticket_hash: 'h2', idempotency_key: 'k1' }) },
    ]);
  });

  it('mints startup calls only for the plugin startup function', () => {
    given(started)
      .when(mint({ function: 'boot', startup: true }))
      .accepted();
    given(started)
      .when(mint({ function: 'save', startup: true }))
      .then(expect.objectContaining({ error: 'invalid', field: 'startup' }));
  });

  it('refuses calls for a job that is absent, ended or past its expiry', () => {
    given([]).when(mint()).then({ error: 'not_found', what: 'job' });
    const ended = given(started).when({ type: 'EndJob', job: 'j1', now: 3000 }).accepted();
    given([...started, ...ended])
      .when(mint())
      .then({ error: 'job_not_running', status: 'ended' });
    // Ceilings default to none (SPEC §6): only a job started with a timeout expires.
    expect((started[0]!.data as { expires_ms: number | null }).expires_ms).toBeNull();
    given(started)
      .when(mint({ now: 1e15 }))
      .accepted();
    const timed = given([])
      .when(start({ ...request, timeout_ms: 60_000 }))
      .accepted();
    const expires = (timed[0]!.data as { expires_ms: number }).expires_ms;
    expect(expires).toBe(61_000);
    given(timed)
      .when(mint({ now: expires }))
      .then({ error: 'job_not_running', status: 'expired' });
  });

  it('ends a call once; ending it again changes nothing; an unknown call is not found', () => {
    const minted = given(started).when(mint()).accepted();
    const end = given([...started, ...minted])
      .when({ type: 'EndCall', job: 'j1', call: 'c1', now: 5 })
      .accepted();
    expect(end).toEqual([{ type: 'CallEnded', data: { tenant: 'acme', job: 'j1', call: 'c1', reason: 'ended', ended_ms: 5 } }]);
    given([...started, ...minted, ...end])
      .when({ type: 'EndCall', job: 'j1', call: 'c1', now: 6 })
      .thenNothing();
    given(started).when({ type: 'EndCall', job: 'j1', call: 'zz', now: 6 }).then({ error: 'not_found', what: 'call' });
  });

  it('ending a job ends every live call first', () => {
    const a = given(started).when(mint()).accepted();
    const b = given([...started, ...a])
      .when(mint({ call: 'c2', ticketHash: 'h2' }))
      .accepted();
    const end = given([...started, ...a, ...b])
      .when({ type: 'EndJob', job: 'j1', now: 9 })
      .accepted();
    expect(end.map((e) => e.type)).toEqual(['CallEnded', 'CallEnded', 'JobEnded']);
    given([...started, ...a, ...b, ...end])
      .when({ type: 'EndJob', job: 'j1', now: 10 })
      .thenNothing();
  });
});
