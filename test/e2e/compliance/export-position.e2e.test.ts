import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_KEY, startTestService, type TestService } from '../../support/service.ts';

/** `?position=` of an export is a plain decimal log position; anything else is refused and writes nothing. */
let svc: TestService;
beforeAll(async () => {
  svc = await startTestService();
  await svc.admin('POST', '/v1/tenants', { id: 'acme' });
});
afterAll(async () => {
  await svc?.stop();
});

const exportAt = (raw: string) => fetch(`${svc.url}/v1/tenants/acme/export?position=${raw}`, { headers: { authorization: `Bearer ${ADMIN_KEY}` } });

describe('an export position', () => {
  it.each(['', '%201', '0x2', '0b1', '0o1', '1e0', '%2B1', '-0', '1.0', '1%20', '%091', '01'])(
    'given position=%s, then 400 invalid and nothing written',
    async (raw) => {
      const before = await svc.lastPosition();
      const res = await exportAt(raw);
      expect(res.status).toBe(400);
      expect(((await res.json()) as { error: string }).error).toBe('invalid');
      expect(await svc.lastPosition()).toBe(before);
    },
  );

  it('given a plain decimal position the log has reached, then the export is built to it and says so', async () => {
    const res = await exportAt('1');
    expect(res.status).toBe(200);
    const manifest = JSON.parse((await res.text()).trim().split('\n').at(-1)!) as { manifest: { position: number } };
    expect(manifest.manifest.position).toBe(1);
  });
});
