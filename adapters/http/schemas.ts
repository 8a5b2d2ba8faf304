import { z } from 'zod';
import { JsonValue } from './json-value.ts';
import { AUDIT_KINDS } from '../../domain/audit/kinds.ts';
import { TimeParam } from './time-param.ts';
import { FitParams } from './fit-params.ts';
import { AGENT_NAME, DATABASE_NAME, FUNCTION_NAME, JOB_ID, NAMED_PURPOSE, PLUGIN_NAME, TENANT_ID } from '../../domain/shared/names.ts';
import { SUBJECT_PATTERNS } from '../../domain/shared/subjects.ts';
import { FILE_REF } from '../../domain/files/ref.ts';

/** The admin API's request shapes (SPEC §5). Unknown fields are refused everywhere. */

const days = z.number().int().min(1).max(36_500);
const offloadTokens = z.number().int().min(1).max(1_000_000);
const label = z.string().regex(/^[A-Za-z0-9][A-Za-z0-9._:/-]{0,127}$/, 'a label is 1–128 of [A-Za-z0-9._:/-]');
const grantScope = z
  .string()
  .regex(
    /^(tool:[a-z0-9][a-z0-9_-]*\/[A-Za-z0-9][A-Za-z0-9._-]*|agent:[a-z0-9][a-z0-9_-]*\/[A-Za-z0-9][A-Za-z0-9._-]*|plugin:[a-z0-9][a-z0-9_-]*)$/,
    'a grant is tool:<plugin>/<function>, agent:<plugin>/<name> or plugin:<name>',
  );
const recordScope = z
  .string()
  .regex(/^(tenant|project:[A-Za-z0-9._-]{1,100}|agent:[A-Za-z0-9._/-]{1,100})$/, 'a scope is tenant, project:<name> or agent:<name>');
const purpose = z.string().max(256);
const name = z.string().min(1).max(200);
/** A subject (`user:ada`): its one spelling is checked where it is used; the document gives the rule as patterns. */
const subject = name.meta({ allOf: SUBJECT_PATTERNS.map((pattern) => ({ pattern })) });

export const TenantSettingsPatch = z.strictObject({
  default_end_days: days.optional(),
  max_end_days: days.optional(),
  caps: z
    .strictObject({
      records: z.number().int().min(1).max(20_000),
      bytes: z
        .number()
        .int()
        .min(1)
        .max(1 << 30),
    })
    .optional(),
  retention_days: z.number().int().min(0).max(36_500).optional(),
  person_memory: z
    .array(z.strictObject({ agent: name, purpose }))
    .max(1000)
    .optional(),
  person_shared_scopes: z.array(recordScope).max(1000).optional(),
  compatible_purposes: z.record(purpose, z.array(purpose).max(1000)).optional(),
  label_walls: z
    .array(z.tuple([label, label]))
    .max(1000)
    .optional(),
  grants: z.record(z.string().regex(PLUGIN_NAME), z.array(grantScope).max(1000)).optional(),
  start_roles: z.array(name).max(1000).optional(),
  start_teams: z.array(name).max(1000).optional(),
  people: z.record(subject, z.strictObject({ roles: z.array(name).max(1000), teams: z.array(name).max(1000) })).optional(),
  /** How deep a job may delegate when its start sets no max_depth; null: no bound. */
  max_depth: z.number().int().min(0).max(32).nullable().optional(),
  /** SPEC §13 offloading: the default threshold and the ceiling, in tokens; null: none. */
  offload_tokens: offloadTokens.nullable().optional(),
  offload_ceiling: offloadTokens.nullable().optional(),
  /** "hashes": the audit log's checkpoint and hash tiles are served without a key (witnesses, monitors); "none" or null: only to the admin and auditors. */
  audit_public: z.enum(['none', 'hashes']).nullable().optional(),
});

/** A client's id for one request: a retry carrying it answers the earlier answer and writes nothing. */
const requestId = z.string().regex(/^[A-Za-z0-9._:-]{1,128}$/, 'a request id is 1–128 of [A-Za-z0-9._:-]');

export const TenantParams = z.strictObject({ t: z.string().regex(TENANT_ID, 'a tenant id is 1–63 of [a-z0-9_-]') });
export const JobParams = TenantParams.extend({ id: z.string().regex(JOB_ID, 'a job id is 1–128 of [A-Za-z0-9._-]') });
export const CallParams = JobParams.extend({ call: z.string().uuid() });

export const CreateTenantBody = z.strictObject({
  id: z.string().regex(TENANT_ID, 'a tenant id is 1–63 of [a-z0-9_-]'),
  settings: TenantSettingsPatch.optional(),
  database: z.string().regex(DATABASE_NAME, 'a database name is 1–40 of [a-z0-9_-], starting with a letter').optional().meta({
    description:
      'with several databases (CUSTODIAN_DATABASES): the one to place the tenant on; left out, the one with the fewest tenants. A deployment of one database refuses it',
  }),
});

export const MoveTenantBody = z.strictObject({
  to: z.string().regex(DATABASE_NAME, 'a database name is 1–40 of [a-z0-9_-], starting with a letter').meta({ description: 'the tenant database to move to' }),
});

export const InstallPluginBody = z.strictObject({
  name: z.string().regex(PLUGIN_NAME, 'a plugin name is 1–63 of [a-z0-9_-]'),
  scopes: z
    .array(z.enum(['agent', 'project', 'tenant']))
    .max(3)
    .optional(),
  // Each listed once: the install refuses a name listed twice (and says which).
  functions: z.array(z.string().regex(FUNCTION_NAME, 'a function name is 1–127 of [A-Za-z0-9._-]')).max(500).meta({ uniqueItems: true }),
  agents: z.array(z.string().regex(AGENT_NAME, 'an agent name is 1–63 of [A-Za-z0-9._-]')).max(200).meta({ uniqueItems: true }),
  startup: z.string().regex(FUNCTION_NAME).optional(),
  request_id: requestId.optional(),
});

export const StartJobBody = z.strictObject({
  id: z.string().regex(JOB_ID, 'a job id is 1–128 of [A-Za-z0-9._-]').optional(),
  agent: z.string().regex(AGENT_NAME, 'an agent name is 1–63 of [A-Za-z0-9._-]'),
  plugin: z.string().regex(PLUGIN_NAME, 'a plugin name is 1–63 of [a-z0-9_-]'),
  subject,
  input: JsonValue.optional(),
  purpose: z.union([z.literal(''), z.string().regex(NAMED_PURPOSE, 'a named purpose is <origin>:<id>, e.g. routine:nightly')]).optional(),
  data_subject: name.optional(),
  labels: z.array(label).max(64).optional(),
  budget_usd: z.number().min(0).max(1e9).optional(),
  max_depth: z.number().int().min(0).max(32).optional(),
  timeout_ms: z
    .number()
    .int()
    .min(1)
    .max(366 * 24 * 3600 * 1000)
    .optional(),
  constraints: z.array(z.string().min(1).max(2000)).max(100).optional(),
  parent: z.string().regex(JOB_ID, 'a job id is 1–128 of [A-Za-z0-9._-]').optional(),
  scopes: z.array(grantScope).max(1000).optional(),
  /** SPEC §13: the tokens a result may weigh before it is offloaded, or "off". */
  offload: z.union([offloadTokens, z.literal('off')]).optional(),
  /** SPEC §13: files another tree stored, handed to the new job's tree. */
  files: z.array(z.string().regex(FILE_REF, 'a file is oz0-file:sha256:<64 hex digits>')).max(100).optional(),
});

export const MintCallBody = z.strictObject({
  function: z.string().regex(/^([a-z0-9][a-z0-9_-]{0,62}\/)?[A-Za-z0-9][A-Za-z0-9._-]{0,126}$/, 'a function is <name> or <plugin>/<name>'),
  step: z.number().int().min(1).max(1_000_000).optional(),
  startup: z.boolean().optional(),
});

/** Bodies of calls that take none: nothing, or an empty object. */
export const EmptyBody = z.union([z.strictObject({}), z.null()]).optional();

export const ClockBody = z.strictObject({
  advance_ms: z
    .number()
    .int()
    .min(0)
    .max(100 * 365 * 24 * 3600 * 1000),
});

const who = z.string().min(1).max(200);
export const RevocationsBody = z.strictObject({
  revocations: z
    .array(
      z.discriminatedUnion('kind', [
        z.strictObject({
          kind: z.literal('kill_agent'),
          agent: z.string().regex(/^[a-z0-9][a-z0-9_-]*\/[A-Za-z0-9][A-Za-z0-9._-]*$/, 'an agent is <plugin>/<agent>'),
        }),
        z.strictObject({ kind: z.literal('grant_narrowed'), grantee: z.string().regex(PLUGIN_NAME), scope: grantScope }),
        z.strictObject({ kind: z.literal('plugin_removed'), plugin: z.string().regex(PLUGIN_NAME) }),
        z.strictObject({ kind: z.literal('api_key_revoked'), key: who }),
        z.strictObject({
          kind: z.literal('person_change'),
          person: who.meta({ allOf: SUBJECT_PATTERNS.map((pattern) => ({ pattern })) }),
          remove_roles: z.array(who).max(1000).optional(),
          remove_teams: z.array(who).max(1000).optional(),
        }),
      ]),
    )
    .min(1)
    .max(1000),
  request_id: requestId.optional(),
});

export const KillParams = TenantParams.extend({
  plugin: z.string().regex(PLUGIN_NAME, 'a plugin name is 1–63 of [a-z0-9_-]'),
  agent: z.string().regex(AGENT_NAME, 'an agent name is 1–63 of [A-Za-z0-9._-]'),
});

export const HoldBody = z.strictObject({
  selector: z
    .strictObject({
      tenant: z.literal(true).optional(),
      plugin: z.string().regex(PLUGIN_NAME).optional(),
      scope: recordScope.optional(),
      record: z.string().min(1).max(200).optional(),
      data_subject: name.optional(),
      job: z.string().regex(JOB_ID).optional(),
    })
    .refine((s) => Object.keys(s).length > 0, { message: 'a selector names at least one of tenant, plugin, scope, record, data_subject, job' })
    .meta({ minProperties: 1 }),
  reason: z.string().min(1).max(2000),
});
export const HoldParams = TenantParams.extend({ hold: z.string().uuid() });
export const ErasureBody = z.strictObject({ data_subject: name });
export const ExportQuery = z.strictObject({
  // Plain decimal only: Number() would also read '', ' 1', '0x2', '1e0' and '+1' as positions.
  position: z
    .string()
    .regex(/^(0|[1-9][0-9]{0,15})$/, 'a log position: a decimal integer, 0 or more')
    .transform(Number)
    .optional(),
  versions: z.enum(['true', 'false']).optional(),
  ...FitParams,
});
export const RenewalsQuery = z.strictObject({ plugin: z.string().regex(PLUGIN_NAME).optional() });

const PLAIN_DECIMAL = /^(0|[1-9][0-9]{0,15})$/;

/**
 * A count or index in a query: plain decimal only ('1e2', '0x2', ' 1', '+1' and '' are
 * refused), within [min, max]. Documented as the integer it is read as.
 */
export const plainDecimal = (what: string, min: number, max: number) =>
  z.preprocess(
    (text, ctx) => {
      if (typeof text === 'string' && PLAIN_DECIMAL.test(text)) return Number(text);
      ctx.addIssue({ code: 'custom', message: `${what}: a decimal integer` });
      return z.NEVER;
    },
    z.number().int().min(min, `${what}: from ${min} to ${max}`).max(max, `${what}: from ${min} to ${max}`),
  );

// A filter value that could never match is refused, not answered with an empty stream.
export const AuditQuery = z.strictObject({
  job: z.string().max(200).optional(),
  record: z
    .string()
    .max(500)
    .regex(/^[^#]+#[^#]+(#(0|[1-9][0-9]{0,15}))?$/, 'a record is <scope>#<key> or <scope>#<key>#<version>, with # sent as %23 (tenant%23decisions/deploy)')
    .optional(),
  kind: z.enum(AUDIT_KINDS).optional(),
  subject: z.string().max(200).optional(),
  since: TimeParam.optional(),
  until: TimeParam.optional(),
  epoch: plainDecimal('epoch, an authority epoch', 0, Number.MAX_SAFE_INTEGER).optional(),
  // Paging (the console): entries from this seq on, or the last ones before it; at most `limit`.
  from_seq: plainDecimal('from_seq, an entry index', 0, Number.MAX_SAFE_INTEGER).optional(),
  before_seq: plainDecimal('before_seq, an entry index', 0, Number.MAX_SAFE_INTEGER).optional(),
  limit: plainDecimal('limit, entries per page', 1, 1000).optional(),
  ...FitParams,
});
/** Either an inclusion proof (leaf and size) or a consistency proof (from and to): the handler refuses a mix, the document says so. */
export const ProofQuery = z
  .strictObject({
    leaf: plainDecimal('leaf, an entry index', 0, Number.MAX_SAFE_INTEGER).optional(),
    size: plainDecimal('size, a tree size', 1, Number.MAX_SAFE_INTEGER).optional(),
    from: plainDecimal('from, a tree size', 1, Number.MAX_SAFE_INTEGER).optional(),
    to: plainDecimal('to, a tree size', 1, Number.MAX_SAFE_INTEGER).optional(),
  })
  .meta({
    oneOf: [
      { required: ['leaf', 'size'], properties: { from: false, to: false } },
      { required: ['from', 'to'], properties: { leaf: false, size: false } },
    ],
  });
