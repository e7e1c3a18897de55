import { type DestinationStream, type Logger, pino } from 'pino';
import { maskLongNumbers, redactForLog, redactSensitiveText } from './domain/masking.ts';
import { secretSpellings } from './domain/scrub.ts';

export type { Logger } from 'pino';

export interface LoggerOptions {
  level: string;
  /** Values that must never appear in a line: the API key, Slack tokens, signing secret. */
  secrets: readonly string[];
  /** Where lines go; stdout by default. Tests pass a collector. */
  destination?: { write(line: string): unknown };
}

/**
 * One pino logger for the whole process. Three layers keep secrets and banking details out:
 * pino's `redact` for well-known header paths; a deep redaction of every logged object and
 * message by field name (`field=value` inside free text too: command text, bodies Bolt logs);
 * and a last scrub of each finished line for the configured secret values themselves.
 */
export function createLogger(options: LoggerOptions): Logger {
  const secrets = secretSpellings(options.secrets);
  const target = options.destination ?? process.stdout;
  const scrubbing: DestinationStream = {
    write(line: string) {
      let clean = line;
      for (const value of secrets) {
        if (clean.includes(value)) clean = clean.split(value).join('[REDACTED]');
      }
      target.write(clean);
    },
  };
  return pino(
    {
      level: options.level,
      base: { service: 'payops' },
      redact: {
        paths: [
          'headers["x-api-key"]',
          'headers.authorization',
          '*.headers["x-api-key"]',
          '*.headers.authorization',
        ],
        censor: '[REDACTED]',
      },
      // Errors keep their type, code, message and stack only: a driver's extra fields (a
      // PostgreSQL error's `detail` quotes the failing row) never reach a line.
      serializers: { err: serializeError },
      formatters: {
        log: (object) => redactForLog(object) as Record<string, unknown>,
      },
      hooks: {
        logMethod(args, method) {
          const scrubbed = args.map((arg) =>
            typeof arg === 'string' ? redactSensitiveText(arg) : arg,
          ) as typeof args;
          method.apply(this, scrubbed);
        },
      },
    },
    scrubbing,
  );
}

function serializeError(error: unknown): unknown {
  if (!(error instanceof Error)) return error;
  const scrub = (text: string | undefined) =>
    text === undefined ? undefined : maskLongNumbers(redactSensitiveText(text));
  const code = (error as { code?: unknown }).code;
  return {
    type: error.name,
    message: scrub(error.message),
    ...(typeof code === 'string' || typeof code === 'number' ? { code } : {}),
    stack: scrub(error.stack),
    ...(error.cause === undefined ? {} : { cause: serializeError(error.cause) }),
  };
}
