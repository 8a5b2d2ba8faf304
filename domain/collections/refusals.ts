import { refusal, type Refusal, type RefusalCode } from '../shared/refusal.ts';
import type { Surface } from '../shared/surface.ts';

/** The seed's error shape: `records: <what is wrong>: <what to change>`. */
export const recordsRefusal = <C extends RefusalCode>(code: C, wrong: string, change: string) => refusal(code, { message: `records: ${wrong}: ${change}` });

/**
 * A collection the agent never declared. It carries no message: how to declare one depends on
 * the surface the caller used, so the message is made where the refusal is answered
 * (`addressedMessage`), with that surface.
 */
export const noCollection = (name: string) => refusal('not_found', { what: 'collection', collection: name });

/** How each surface declares a collection. */
const DECLARE: Readonly<Record<Surface, (name: string) => string>> = {
  http: (name) => `declare it first: PUT /v1/agent/collections with {"collections": {${JSON.stringify(name)}: {"people": [], "fields": []}}}`,
  go: (name) => `declare it first: PUT /v1/agent/collections with {"collections": {${JSON.stringify(name)}: {"people": [], "fields": []}}}`,
  mcp: (name) => `declare it first with the records_declare tool: {"collections": {${JSON.stringify(name)}: {"people": [], "fields": []}}}`,
  python: (name) => `declare it in AgentRecords(url, key, collections={${JSON.stringify(name)}: {"people": [], "fields": []}})`,
  typescript: (name) => `declare it in createRecords({ collections: { ${JSON.stringify(name)}: { people: [], fields: [] } } })`,
};

/**
 * The message of an agent records refusal that names what to call next, addressed to the
 * surface that got it; null for every other refusal (its message is the same for all).
 */
export const addressedMessage = (r: Refusal, surface: Surface): string | null =>
  r.error === 'not_found' && r.what === 'collection' && typeof r.collection === 'string'
    ? `records: no collection named ${r.collection}: ${DECLARE[surface](r.collection)}`
    : null;

export const forgottenWhileRunning = () => refusal('forgotten', { message: 'records: not kept: the person was forgotten while the tool ran' });
