import { ErrorCode, type WebAPIPlatformError } from '@slack/web-api';

/** Slack's own failures, worth another try (an `ok: false` answer that is not about the call). */
export const TRANSIENT_ERRORS: ReadonlySet<string> = new Set([
  'internal_error',
  'fatal_error',
  'service_unavailable',
  'request_timeout',
  'ratelimited',
]);

/** The `error` of Slack's `ok: false` answer, if that is what `error` is. */
export function platformErrorOf(error: unknown): string | undefined {
  return (error as { code?: unknown }).code === ErrorCode.PlatformError
    ? (error as WebAPIPlatformError).data.error
    : undefined;
}
