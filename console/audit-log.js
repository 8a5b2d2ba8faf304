/* global localStorage, URLSearchParams */
// Reading the audit log and checking it against signed checkpoints: shared by the timeline and
// the receipt pages. Every check itself is verify.js's; this module fetches and keeps state.
import { checkpointOfLog, extendsSeen, importPublicKey, lineIncluded, logNameOf } from './verify.js';
import { enc, get } from './http.js';

/** Entries per page of the timeline. */
export const PAGE = 50;

let publicKey = null;
/** The audit public key, fetched and imported once per page load. */
export const auditKey = async () => (publicKey ??= await importPublicKey(await get('/v1/audit-key', 'text')));
let logName = null;
/** This deployment's log name (its verifier key's name): every tenant's origin starts with it. */
export const auditLogName = async () => (logName ??= logNameOf(await get('/v1/audit-key?format=vkey', 'text')));

/** A link to the timeline page holding entry `seq`, opened there. */
export const entryLink = (seq) => `#/audit?from=${Math.floor(seq / PAGE) * PAGE}&open=${seq}`;

const seqOf = (line) => {
  try {
    return JSON.parse(line).seq;
  } catch {
    return null;
  }
};

/**
 * Audit lines (filters and paging applied) and a checkpoint read after them, so it covers
 * every one. `signed` holds only for a checkpoint of this tenant's log signed by the audit key.
 */
export const readLog = async (tenant, params = {}) => {
  const q = new URLSearchParams(Object.entries(params).filter(([, v]) => v !== '' && v !== undefined && v !== null));
  const read = async () => {
    const text = await get(`/v1/tenants/${enc(tenant)}/audit${q.size ? `?${q}` : ''}`, 'text');
    const lines = text.split('\n').filter((l) => l !== '');
    const checkpoint = await get(`/v1/tenants/${enc(tenant)}/audit/checkpoint`);
    return { lines, checkpoint };
  };
  let { lines, checkpoint } = await read();
  // Entries appended between the two reads: the checkpoint is read once more.
  if (lines.some((l) => (seqOf(l) ?? 0) >= checkpoint.size)) ({ lines, checkpoint } = await read());
  const { signed, ofThisLog } = await checkpointOfLog(await auditKey(), checkpoint, tenant, await auditLogName());
  return { lines, checkpoint, signed, ofThisLog };
};

/**
 * Why an unpaged, unfiltered page is not the stretch of the signed log it should be (every
 * seq from `from`, once, up to the page's end or the log's), or null when it is. Each entry's
 * proof shows it is IN the tree; only this shows none was left out, and none shown twice.
 */
export const pageGap = (lines, from, size, limit) => {
  const want = Math.max(0, Math.min(limit, size - from));
  if (lines.length !== want) return `the page should hold entries ${from} to ${from + want - 1} of the signed log (size ${size}) but holds ${lines.length}`;
  for (let i = 0; i < lines.length; i++) {
    const seq = seqOf(lines[i]);
    if (seq !== from + i) return seq === null ? 'an entry is not JSON' : `entry ${from + i} of the signed log is missing from the answer (found ${seq})`;
  }
  return null;
};

/** One line against the log's checkpoint: its inclusion proof fetched and checked here. */
export const checkLine = async (tenant, line, log) => {
  if (!log.signed) return { ok: false, reason: 'the checkpoint signature does not verify' };
  const seq = seqOf(line);
  if (!Number.isSafeInteger(seq) || seq < 0 || seq >= log.checkpoint.size) return { ok: false, reason: 'the entry is outside the signed tree' };
  try {
    const proof = await get(`/v1/tenants/${enc(tenant)}/audit/proof?leaf=${seq}&size=${log.checkpoint.size}`);
    return await lineIncluded(line, proof, log.checkpoint);
  } catch (error) {
    return { ok: false, reason: `no proof: ${error.message}` };
  }
};

/**
 * Checks the items ({line}) of one page: their proofs asked in one request for the page's
 * entries only, each then checked here against the checkpoint. Answers how many verified.
 */
export const checkLines = async (tenant, log, items, onResult) => {
  const seqs = items.map((i) => seqOf(i.line));
  const inTree = seqs.filter((q) => Number.isSafeInteger(q) && q >= 0 && q < log.checkpoint.size);
  let proofs = new Map();
  let failure = null;
  if (log.signed && inTree.length > 0) {
    try {
      const answer = await get(`/v1/tenants/${enc(tenant)}/console/audit-proofs?leaves=${inTree.join(',')}&size=${log.checkpoint.size}`);
      proofs = new Map((answer.proofs ?? []).map((p) => [p.leaf_index, p]));
    } catch (error) {
      failure = `no proof: ${error.message}`;
    }
  }
  let verified = 0;
  for (const [n, item] of items.entries()) {
    const seq = seqs[n];
    let result;
    if (!log.signed) result = { ok: false, reason: 'the checkpoint signature does not verify' };
    else if (!inTree.includes(seq)) result = { ok: false, reason: 'the entry is outside the signed tree' };
    else if (failure) result = { ok: false, reason: failure };
    else result = await lineIncluded(item.line, proofs.get(seq), log.checkpoint);
    if (result.ok) verified++;
    onResult(item, result);
  }
  return verified;
};

const storeKey = (tenant) => `custodian.checkpoint.${tenant}`;

/**
 * The log only grows: the last signed checkpoint this browser verified for the tenant is kept
 * (localStorage, across pages and visits), and the next one must extend it. A history
 * rewritten or cut short between two pages turns this red even when every entry shown proves
 * in the new tree. Answers null when there was nothing to compare with.
 */
export const consistencyWithSeen = async (tenant, log) => {
  if (!log.signed && log.ofThisLog) return { result: null, seen: null };
  const kept = localStorage.getItem(storeKey(tenant));
  let seen;
  try {
    seen = JSON.parse(kept ?? 'null');
  } catch {
    seen = null;
  }
  const fetchProof = (from, to) => get(`/v1/tenants/${enc(tenant)}/audit/proof?from=${from}&to=${to}`);
  const result = await extendsSeen(await auditKey(), seen, log.checkpoint, tenant, fetchProof, await auditLogName());
  // A tree that failed to extend the one seen, or one not verified as this tenant's, is never the
  // new reference; nor is one checked against a reference another page replaced meanwhile (a page
  // left behind, answered late, would put back a smaller tree than the one kept since).
  if (log.signed && (!result || result.ok) && log.checkpoint.size > 0 && localStorage.getItem(storeKey(tenant)) === kept)
    localStorage.setItem(storeKey(tenant), JSON.stringify(log.checkpoint));
  return { result, seen };
};

/**
 * The witnesses that cosigned a checkpoint, by key name: read from its cosignature lines
 * (`— <name> <base64>`), each verified by the service under that witness's configured key
 * before it was kept. `custodian audit verify --witness <vkey>` checks them with the key itself.
 */
export const cosignersOf = (checkpoint) => (checkpoint.cosignatures ?? []).map((line) => /^\u2014 (\S+) /.exec(line)?.[1]).filter((name) => name !== undefined);
