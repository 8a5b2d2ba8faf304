import pino, { type Logger } from 'pino';
import pretty from 'pino-pretty';

export type LogFormat = 'json' | 'pretty';

/** A log format the operator can fix: the CLI says so in one line instead of a stack trace. */
export class InvalidLogFormat extends Error {}

/**
 * Pretty lines for a person at a terminal, JSON lines for anything that collects them (a
 * pipe, a file, a container's log driver). `CUSTODIAN_LOG_FORMAT` overrides the guess either
 * way; any other value is a mistake worth stopping for, not a format to guess.
 */
export const logFormatOf = (isTTY: boolean | undefined, override: string | undefined): LogFormat => {
  if (override === undefined || override === '') return isTTY === true ? 'pretty' : 'json';
  if (override === 'json' || override === 'pretty') return override;
  throw new InvalidLogFormat(`CUSTODIAN_LOG_FORMAT must be json or pretty, not ${JSON.stringify(override)}`);
};

/** The process's logger on stdout, at LOG_LEVEL (default info), in the format above. */
export const processLogger = (env: NodeJS.ProcessEnv = process.env, stdout: { isTTY?: boolean } = process.stdout): Logger => {
  const level = env.LOG_LEVEL ?? 'info';
  if (logFormatOf(stdout.isTTY, env.CUSTODIAN_LOG_FORMAT) === 'json') return pino({ level });
  return pino({ level }, pretty({ colorize: stdout.isTTY === true, translateTime: 'SYS:HH:MM:ss.l', ignore: 'pid,hostname' }));
};

/** `processLogger` for a CLI command: a bad `CUSTODIAN_LOG_FORMAT` is one line on stderr and exit code 2. */
export const cliLogger = (): Logger => {
  try {
    return processLogger();
  } catch (error) {
    if (!(error instanceof InvalidLogFormat)) throw error;
    process.stderr.write(`custodian: ${error.message}\n`);
    process.exit(2);
  }
};
