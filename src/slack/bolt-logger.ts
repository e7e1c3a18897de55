import { type Logger as BoltLogger, LogLevel } from '@slack/bolt';
import type { Logger } from '../logger.ts';

/**
 * Bolt's logger interface over our pino logger, so what Bolt and its WebClient log goes
 * through the same redaction. Bolt calls `setLevel(logLevel ?? 'info')` at construction,
 * which would silently override LOG_LEVEL: the level stays ours and `setLevel` is ignored.
 */
export function boltLogger(parent: Logger): BoltLogger {
  const logger = parent.child({ component: 'bolt' });
  const write =
    (level: 'debug' | 'info' | 'warn' | 'error') =>
    (...messages: unknown[]) => {
      // Bolt and the WebClient log several debug lines per request: build none that is dropped.
      if (!logger.isLevelEnabled(level)) return;
      const error = messages.find((message): message is Error => message instanceof Error);
      const text = withoutMessageBodies(
        messages
          .filter((message) => message !== error)
          .map((message) => (typeof message === 'string' ? message : safeJson(message)))
          .join(' '),
      );
      if (error) logger[level]({ err: error }, text);
      else logger[level](text);
    };
  return {
    debug: write('debug'),
    info: write('info'),
    warn: write('warn'),
    error: write('error'),
    setLevel: () => {},
    getLevel: () => BOLT_LEVELS[logger.level] ?? LogLevel.ERROR,
    setName: () => {},
  };
}

const BOLT_LEVELS: Record<string, LogLevel> = {
  trace: LogLevel.DEBUG,
  debug: LogLevel.DEBUG,
  info: LogLevel.INFO,
  warn: LogLevel.WARN,
  error: LogLevel.ERROR,
  fatal: LogLevel.ERROR,
};

/**
 * The WebClient logs each Web API request and result in full at debug level. Those are rendered
 * Slack messages — approval cards name beneficiaries — so only that a body existed is kept.
 */
const MESSAGE_BODY = /^(http request (?:body|result): ).*$/s;

/**
 * Socket Mode logs each raw payload at debug: a response_url or trigger_id in it lets anyone
 * holding the log answer as payops for half an hour, so their values are dropped.
 */
const CAPABILITIES = /("?(?:response_url|trigger_id)"?\s*[:=]\s*"?)[^"&\s,}]+/g;

function withoutMessageBodies(text: string): string {
  return text
    .replace(MESSAGE_BODY, '$1[omitted: may hold beneficiary details]')
    .replace(CAPABILITIES, '$1[redacted]');
}

function safeJson(value: unknown): string {
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return String(value);
  }
}
