import { setTimeout as sleep } from 'node:timers/promises';
import {
  type Logger,
  type RetryOptions,
  type WebAPICallResult,
  WebAPIHTTPError,
  WebAPIPlatformError,
  WebAPIRequestError,
  WebClient,
  type WebClientOptions,
} from '@slack/web-api';
import type { SlackHttp } from './slack-http.ts';

/**
 * Posted, updated or linked for every payment request and every decision on one: the approval
 * message and the requester's thread.
 */
const DIRECT_METHODS: ReadonlySet<string> = new Set([
  'chat.postMessage',
  'chat.update',
  'chat.getPermalink',
]);

/**
 * The engine's WebClient. The calls of DIRECT_METHODS skip the SDK's per-call machinery (a
 * queue, a retry wrapper, a WHATWG Response, and three JSON serialisations of the body and the
 * answer for debug lines it then drops): measured at twice the CPU of the same call posted
 * directly, on the path every approval takes. They keep its wire format (a form, Bearer token),
 * its errors (`ok: false` is a WebAPIPlatformError, not retried) and our retry policy
 * (`retryConfig`: network errors and non-200 answers tried again after a backoff; a 429 after
 * its Retry-After), and the warnings Slack adds to an answer are logged as the SDK logs them;
 * only its debug lines (bodies and answers) are not written for them. Every other method is the
 * SDK's own.
 */
export class PayopsWebClient extends WebClient {
  readonly #postForm: SlackHttp['postForm'];
  readonly #retries: DirectRetries;
  readonly #log: Pick<Logger, 'warn'> | undefined;

  constructor(
    token: string,
    options: WebClientOptions & { retryConfig: DirectRetries; postForm: SlackHttp['postForm'] },
  ) {
    const { postForm, ...webClientOptions } = options;
    super(token, webClientOptions);
    this.#postForm = postForm;
    this.#retries = options.retryConfig;
    this.#log = options.logger;
  }

  override async apiCall(
    method: string,
    options: Record<string, unknown> = {},
  ): Promise<WebAPICallResult> {
    if (!DIRECT_METHODS.has(method)) return super.apiCall(method, options);
    const url = `${this.slackApiUrl}${method}`;
    const form = formOf(options);
    for (let attempt = 0; ; attempt++) {
      const last = attempt >= this.#retries.retries;
      const backoffMs = Math.min(
        this.#retries.maxTimeout,
        this.#retries.minTimeout * this.#retries.factor ** attempt,
      );
      let answer: Awaited<ReturnType<SlackHttp['postForm']>>;
      try {
        answer = await this.#postForm(url, this.token ?? '', form);
      } catch (error) {
        if (last)
          throw new WebAPIRequestError(error instanceof Error ? error : new Error(String(error)));
        await sleep(backoffMs);
        continue;
      }
      if (answer.status === 200) {
        const result = parseResult(answer.body);
        if (!result.ok) throw new WebAPIPlatformError({ ...result, error: String(result.error) });
        for (const warning of result.response_metadata?.warnings ?? []) this.#log?.warn(warning);
        return result;
      }
      if (last) {
        throw new WebAPIHTTPError(answer.status, answer.statusText, answer.headers, answer.body);
      }
      // Slack's 429 says when to come back; anything else is given the backoff.
      const retryAfterSec = Number.parseInt(answer.headers['retry-after'] ?? '', 10);
      await sleep(
        answer.status === 429 && Number.isFinite(retryAfterSec) ? retryAfterSec * 1000 : backoffMs,
      );
    }
  }
}

type DirectRetries = Required<
  Pick<RetryOptions, 'retries' | 'factor' | 'minTimeout' | 'maxTimeout'>
>;

/** As the SDK sends it: each argument a form field, objects and arrays as JSON text. */
function formOf(options: Record<string, unknown>): string {
  const form = new URLSearchParams();
  for (const [name, value] of Object.entries(options)) {
    if (value === undefined || value === null) continue;
    form.set(
      name,
      typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean'
        ? String(value)
        : JSON.stringify(value),
    );
  }
  return form.toString();
}

/** Slack answers JSON; anything else is an error, as the SDK reports it. */
function parseResult(text: string): WebAPICallResult & { error?: unknown } {
  try {
    const parsed: unknown = JSON.parse(text);
    if (parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed)) {
      return parsed as WebAPICallResult;
    }
  } catch {
    // not JSON: said as the error below
  }
  return { ok: false, error: text };
}
