import { describe, expect, it } from 'vitest';
import { snapshotWritesSettled, writeLater } from '../../../queries/snapshot-write.ts';

/** A write held until the test lets it end (`end`), with whether it has ended. */
const held = (fails = false) => {
  let end = () => undefined as void;
  const state = { started: false, ended: false };
  const write = () =>
    new Promise<void>((resolve, reject) => {
      state.started = true;
      end = () => {
        state.ended = true;
        if (fails) reject(new Error('write refused'));
        else resolve();
      };
    });
  return { write, state, end: () => end() };
};

describe('snapshotWritesSettled', () => {
  it('resolves only once every write scheduled before it has ended, written or failed', async () => {
    const one = held();
    const two = held(true);
    const heard: unknown[] = [];
    writeLater(one.write);
    writeLater(two.write, (error) => heard.push(error));
    let settled = false;
    const settling = snapshotWritesSettled().then(() => (settled = true));
    // Both writes start after the caller is answered (the next turn), and neither has ended.
    await new Promise((r) => setImmediate(r));
    expect([one.state.started, two.state.started]).toEqual([true, true]);
    one.end();
    await new Promise((r) => setImmediate(r));
    expect(settled).toBe(false);
    two.end();
    await settling;
    expect(settled).toBe(true);
    expect(heard).toEqual([new Error('write refused')]);
  });
});
