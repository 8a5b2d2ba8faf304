/* global fetch, sessionStorage */
// The console's only way to the service: GET requests with the session's key.

const SESSION = 'custodian.console';

/** The signed-in session: tenant, key, and what the service said the key is (role, pages). */
export const session = () => {
  try {
    const s = JSON.parse(sessionStorage.getItem(SESSION) ?? 'null');
    return s && typeof s.tenant === 'string' && typeof s.key === 'string' && Array.isArray(s.pages) ? s : null;
  } catch {
    return null;
  }
};
export const saveSession = (s) => sessionStorage.setItem(SESSION, JSON.stringify(s));
export const forgetSession = () => sessionStorage.removeItem(SESSION);

export class HttpError extends Error {
  constructor(status, body) {
    super(`${status} ${body?.error ?? ''}${body?.reason ? `: ${body.reason}` : ''}`);
    this.status = status;
    this.body = body;
  }
}

/** A GET with the given key (the session's by default); the console never sends anything else. */
export const get = async (path, as = 'json', key = session()?.key) => {
  const res = await fetch(path, { method: 'GET', headers: key ? { authorization: `Bearer ${key}` } : {}, cache: 'no-store' });
  const text = await res.text();
  if (!res.ok) {
    let body;
    try {
      body = JSON.parse(text);
    } catch {
      body = { error: text.slice(0, 200) };
    }
    throw new HttpError(res.status, body);
  }
  return as === 'json' ? JSON.parse(text) : text;
};

export const enc = encodeURIComponent;
