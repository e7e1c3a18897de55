import { setTimeout as sleep } from 'node:timers/promises';
import { Pool, errors as undiciErrors } from 'undici';
import type { OperationId, OperationSpec } from '../domain/operations.ts';
import { OPERATIONS } from '../domain/operations.ts';
import { Semaphore } from '../lib/semaphore.ts';
import type { Logger } from '../logger.ts';
import {
  InsufficientScopeError,
  InvalidApiKeyError,
  MalformedResponseError,
  MissingApiKeyError,
  NetworkError,
  OutcomeUnknownError,
  PaymentsApiError,
  type PaymentsErrorDetails,
  ReplyTooLargeError,
  RequestRejectedError,
  ScopeReviewRequiredError,
  ServerError,
  TimeoutError,
} from './errors.ts';
import { parseJsonPreservingDecimals } from './lossless-json.ts';
import { readProblem } from './problem.ts';

/**
 * 4xx statuses that by HTTP's own meaning refuse a request before acting on it. The spec shows
 * only 401 and 403, so any other 4xx on a write (408 from a gateway, 409, 425…) does not prove
 * it was not executed: it is an unknown outcome, checked by reading like a 5xx.
 */
const REFUSED_BEFORE_EXECUTION: ReadonlySet<number> = new Set([
  400, 401, 403, 404, 405, 406, 410, 411, 413, 414, 415, 422, 429, 431,
]);

export interface PaymentsClientOptions {
  baseUrl: string;
  apiKey: string;
  readTimeoutMs: number;
  writeTimeoutMs: number;
  /** Requests in flight to the provider at once; the provider gives no rate-limit contract. */
  maxInFlight: number;
  /** Extra attempts for a read after a network error or a 429/502/503/504 (2 unless a test says). */
  readRetries?: number;
  logger: Logger;
  /** Longest `Retry-After` a read will wait for; a longer one is reported instead. */
  maxRetryAfterMs?: number;
  /** For tests: a deterministic jitter source. */
  random?: () => number;
}

export interface CallInput {
  path?: Readonly<Record<string, string>>;
  query?: Readonly<Record<string, string | number | boolean | undefined>>;
  /**
   * For a read: the query a list's previous reply asked for its next page with (`cursor`,
   * `page`…). The spec shows no paging, so these come from the provider, not the catalogue.
   */
  page?: Readonly<Record<string, string>>;
  /** A write's JSON body. A string is sent byte for byte, as approved. */
  body?: string | Readonly<Record<string, unknown>>;
  signal?: AbortSignal;
  /**
   * When the deadline starts (a `performance.now()` reading), if before the call: an approved
   * write's counts from its claim, so whatever waited since, it is sent within the lease or not.
   */
  deadlineFrom?: number;
}

export interface ApiResponse {
  operationId: OperationId;
  status: number;
  requestId: string | undefined;
  /** Parsed JSON, `undefined` for an empty body. Its shape is not in the spec: never assume it. */
  body: unknown;
  durationMs: number;
  attempts: number;
}

/** Statuses after which a read may be tried again; writes never are. */
const RETRYABLE_READ_STATUSES = new Set([429, 502, 503, 504]);

/**
 * Connection errors that happen before a single byte of the request is written: after them
 * a write certainly did not reach the provider. Anything else may have reached it.
 */
const NOT_SENT_CODES = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'UND_ERR_CONNECT_TIMEOUT',
]);

const MAX_ERROR_BODY_BYTES = 64 * 1024;
/**
 * Bytes read of one reply at most: undici stops reading past them (`maxResponseSize`). A page of
 * hundreds of records is tens of kilobytes; a reply this large is held several times over while
 * parsed (text, quoted text, objects), so a few read at once stay within a small heap.
 */
export const MAX_REPLY_BYTES = 2 * 1024 * 1024;
const BACKOFF_BASE_MS = 100;
const BACKOFF_CAP_MS = 2_000;
/** A call that waited for a connection is sent only with at least this share of its deadline left. */
const MIN_SEND_SHARE = 0.1;

class DeadlineExceeded extends Error {}

export class PaymentsClient {
  readonly #options: Required<Omit<PaymentsClientOptions, 'logger'>> & { logger: Logger };
  readonly #pool: Pool;
  /** Writes only: every one on a connection opened for it and closed after it. */
  readonly #writePool: Pool;
  readonly #basePath: string;
  readonly #inFlight: Semaphore;

  constructor(options: PaymentsClientOptions) {
    this.#options = { maxRetryAfterMs: 5_000, random: Math.random, readRetries: 2, ...options };
    const base = new URL(options.baseUrl);
    this.#basePath = base.pathname.replace(/\/+$/, '');
    this.#inFlight = new Semaphore(options.maxInFlight);
    // Keep-alive pool sized to the in-flight bound, so requests queue in our semaphore
    // (where a deadline has not started yet) and never inside undici.
    const poolOptions = {
      connections: options.maxInFlight,
      pipelining: 1,
      headersTimeout: options.writeTimeoutMs,
      bodyTimeout: options.writeTimeoutMs,
      maxResponseSize: MAX_REPLY_BYTES,
    };
    this.#pool = new Pool(base.origin, { ...poolOptions, keepAliveTimeout: 30_000 });
    // A kept-alive connection can be closed by the provider just as a request goes out on it
    // (its idle timeout, or ours seen late by a busy event loop): a read is then retried, but
    // a write's outcome would be unknown though it never arrived. A write opens its own
    // connection, which no idle timeout can have closed.
    // Its connect has a deadline of its own, inside the write's: a connect that times out is a
    // write known not sent, where the write's deadline passing could only say "unknown".
    this.#writePool = new Pool(base.origin, {
      ...poolOptions,
      connect: { timeout: Math.min(10_000, Math.ceil(options.writeTimeoutMs / 2)) },
    });
  }

  async call(operationId: OperationId, input: CallInput = {}): Promise<ApiResponse> {
    const spec: OperationSpec = OPERATIONS[operationId];
    const target = this.#target(spec, input);
    const body =
      input.body === undefined || typeof input.body === 'string'
        ? input.body
        : JSON.stringify(input.body);
    if (body !== undefined) {
      this.#options.logger.trace(
        { operationId, requestBody: parseForLog(body) },
        'payments request body',
      );
    }
    const started = performance.now();
    // Our loop, not undici's RetryAgent or p-retry: whether to retry is decided on the
    // classified error (never a write, never what may have executed), each try in its own slot.
    const maxAttempts = spec.kind === 'read' ? 1 + this.#options.readRetries : 1;
    for (let attempt = 1; ; attempt++) {
      try {
        const response = await this.#attempt(operationId, spec, target, body, input);
        const result = { ...response, durationMs: performance.now() - started, attempts: attempt };
        this.#logCall(result);
        return result;
      } catch (error) {
        if (!(error instanceof PaymentsApiError)) throw error;
        const delay = attempt < maxAttempts ? this.#retryDelay(error, attempt) : undefined;
        this.#logFailure(error, performance.now() - started, attempt, delay);
        if (delay === undefined || input.signal?.aborted) throw error;
        await sleep(delay, undefined, input.signal ? { signal: input.signal } : undefined);
      }
    }
  }

  async close(): Promise<void> {
    await Promise.all([this.#pool.close(), this.#writePool.close()]);
  }

  #target(spec: OperationSpec, input: CallInput): string {
    const path = spec.path.replace(/\{(\w+)\}/g, (_match, name: string) => {
      const value = input.path?.[name];
      if (value === undefined || value === '') {
        throw new TypeError(`path parameter ${name} is required for ${spec.method} ${spec.path}`);
      }
      return encodeURIComponent(value);
    });
    const query = new URLSearchParams();
    for (const [name, value] of Object.entries(input.query ?? {})) {
      if (value === undefined) continue;
      if (!spec.query.some((param) => param.name === name)) {
        throw new TypeError(`${spec.method} ${spec.path} takes no query parameter ${name}`);
      }
      query.set(name, String(value));
    }
    for (const [name, value] of Object.entries(input.page ?? {})) {
      if (spec.kind !== 'read') throw new TypeError("only a read follows a list's pages");
      query.set(name, value);
    }
    const search = query.toString();
    return `${this.#basePath}${path}${search ? `?${search}` : ''}`;
  }

  async #attempt(
    operationId: OperationId,
    spec: OperationSpec,
    path: string,
    body: string | undefined,
    { signal, deadlineFrom }: CallInput,
  ): Promise<Omit<ApiResponse, 'durationMs' | 'attempts'>> {
    const isWrite = spec.kind === 'write';
    const timeoutMs = isWrite ? this.#options.writeTimeoutMs : this.#options.readTimeoutMs;
    const headers: Record<string, string> = {
      accept: 'application/json',
      'user-agent': 'payops',
    };
    // The key travels in this header only, and never to the unauthenticated health check.
    if (spec.authenticated && this.#options.apiKey) headers['x-api-key'] = this.#options.apiKey;
    if (body !== undefined) headers['content-type'] = 'application/json';

    // The deadline covers the wait for a slot too: a slow provider cannot make requests pile
    // up without bound, and a write never reaches the provider later than
    // PAYMENTS_WRITE_TIMEOUT_MS after it was claimed (the execution lease relies on it).
    const queuedAt = Math.min(deadlineFrom ?? Number.POSITIVE_INFINITY, performance.now());
    const release = await this.#acquire(operationId, isWrite, timeoutMs, queuedAt, signal);
    const remainingMs = Math.max(1, timeoutMs - (performance.now() - queuedAt));
    const deadline = new AbortController();
    const timer = setTimeout(() => deadline.abort(new DeadlineExceeded()), remainingMs);
    const onCallerAbort = () => deadline.abort(signal?.reason);
    signal?.addEventListener('abort', onCallerAbort, { once: true });
    let status: number | undefined;
    let requestId: string | undefined;
    try {
      const response = await (isWrite ? this.#writePool : this.#pool).request({
        method: spec.method,
        reset: isWrite,
        path,
        headers,
        body,
        signal: deadline.signal,
        headersTimeout: remainingMs,
        bodyTimeout: remainingMs,
      });
      status = response.statusCode;
      requestId = requestIdFromHeaders(response.headers);
      const text =
        status >= 300
          ? await readText(response.body, MAX_ERROR_BODY_BYTES)
          : await this.#successText(operationId, isWrite, status, requestId, response.body);
      // Only a 2xx is a success: redirects are not followed (a write must not be resent).
      if (status >= 300)
        throw this.#httpError(operationId, isWrite, status, requestId, text, response.headers);
      return {
        operationId,
        status,
        requestId,
        body: parseSuccessBody(operationId, isWrite, status, requestId, text),
      };
    } catch (error) {
      if (error instanceof PaymentsApiError) throw error;
      throw this.#transportError(operationId, isWrite, error, deadline.signal, status, requestId);
    } finally {
      clearTimeout(timer);
      signal?.removeEventListener('abort', onCallerAbort);
      release();
    }
  }

  /**
   * A success's body, read by undici only up to MAX_REPLY_BYTES. Past them a read's reply is
   * unread (`ReplyTooLargeError`), and a write's answer unreadable: executed, but which record
   * it made is unknown.
   */
  async #successText(
    operationId: OperationId,
    isWrite: boolean,
    status: number,
    requestId: string | undefined,
    body: { text(): Promise<string> },
  ): Promise<string> {
    try {
      return await body.text();
    } catch (cause) {
      if (!(cause instanceof undiciErrors.ResponseExceededMaxSizeError)) throw cause;
      const details = { operationId, status, requestId, cause };
      throw isWrite
        ? new OutcomeUnknownError('unreadable_success_reply', details)
        : new ReplyTooLargeError(
            `${operationId} answered with more than ${MAX_REPLY_BYTES} bytes`,
            {
              ...details,
              limitBytes: MAX_REPLY_BYTES,
            },
          );
    }
  }

  /**
   * A slot within the deadline, or an error saying nothing was sent: for a write, a network
   * error (certainly not executed); for a read, a timeout (the provider is too busy now).
   */
  async #acquire(
    operationId: OperationId,
    isWrite: boolean,
    timeoutMs: number,
    queuedAt: number,
    signal: AbortSignal | undefined,
  ): Promise<() => void> {
    const notSent = (cause?: unknown) => {
      const details = { operationId, cause };
      const waited = `${operationId} waited ${Math.round(performance.now() - queuedAt)} ms`;
      return isWrite
        ? new NetworkError(`${waited}; the write was not sent`, details)
        : new TimeoutError(`${waited}; not sent`, details);
    };
    // Sent with almost none of the deadline left, the call would time out in flight, and a
    // write's outcome would be unknown for nothing.
    const tooLate = () => performance.now() - queuedAt > timeoutMs * (1 - MIN_SEND_SHARE);
    if (tooLate()) throw notSent();
    // A free slot needs no deadline: most calls never wait.
    const free = signal?.aborted ? undefined : this.#inFlight.tryAcquire();
    if (free) return free;
    let release: () => void;
    try {
      release = await this.#inFlight.acquire({
        signal,
        timeoutMs: Math.max(1, timeoutMs - (performance.now() - queuedAt)),
      });
    } catch (cause) {
      throw notSent(cause);
    }
    if (tooLate()) {
      release();
      throw notSent();
    }
    return release;
  }

  #httpError(
    operationId: OperationId,
    isWrite: boolean,
    status: number,
    headerRequestId: string | undefined,
    text: string,
    headers: Record<string, string | string[] | undefined>,
  ): PaymentsApiError {
    const problem = readProblem(text);
    const details: PaymentsErrorDetails = {
      operationId,
      status,
      providerCode: problem.code,
      providerMessage: problem.message,
      requestId: headerRequestId ?? problem.requestId,
      retryAfterMs: parseRetryAfter(headers['retry-after']),
    };
    const summary = `${operationId} failed with HTTP ${status}`;
    const codeOrMessage = `${problem.code ?? ''} ${problem.message ?? ''}`;
    if (status === 401) {
      return /required|missing|no api key/i.test(codeOrMessage) &&
        !/invalid|revoked/i.test(codeOrMessage)
        ? new MissingApiKeyError(summary, details)
        : new InvalidApiKeyError(summary, details);
    }
    if (status === 403 && codeOrMessage.includes('API_KEY_SCOPE_REVIEW_REQUIRED')) {
      return new ScopeReviewRequiredError(summary, details);
    }
    if (status === 403 && codeOrMessage.includes('INSUFFICIENT_API_KEY_SCOPE')) {
      return new InsufficientScopeError(summary, details);
    }
    if (status < 400) {
      // A redirect: a write may already have been done (303 after a POST), a read was not.
      return isWrite
        ? new OutcomeUnknownError('unexpected_reply', details)
        : new RequestRejectedError(summary, details);
    }
    if (status >= 500) {
      return isWrite
        ? new OutcomeUnknownError('server_error', details)
        : new ServerError(summary, details);
    }
    if (isWrite && !REFUSED_BEFORE_EXECUTION.has(status)) {
      return new OutcomeUnknownError('unclear_refusal', details);
    }
    return new RequestRejectedError(summary, details);
  }

  #transportError(
    operationId: OperationId,
    isWrite: boolean,
    error: unknown,
    deadline: AbortSignal,
    status: number | undefined,
    requestId: string | undefined,
  ): PaymentsApiError {
    const details: PaymentsErrorDetails = { operationId, status, requestId, cause: error };
    const timedOut =
      deadline.reason instanceof DeadlineExceeded ||
      error instanceof undiciErrors.HeadersTimeoutError ||
      error instanceof undiciErrors.BodyTimeoutError;
    if (isWrite) {
      if (timedOut) return new OutcomeUnknownError('timeout', details);
      if (status === undefined && NOT_SENT_CODES.has(errorCode(error))) {
        return new NetworkError(
          `${operationId} could not connect; the write was not sent`,
          details,
        );
      }
      return new OutcomeUnknownError('connection_lost', details);
    }
    if (timedOut) return new TimeoutError(`${operationId} timed out`, details);
    return new NetworkError(
      `${operationId} failed: ${errorCode(error) || 'network error'}`,
      details,
    );
  }

  #retryDelay(error: PaymentsApiError, attempt: number): number | undefined {
    const retryable =
      error instanceof NetworkError ||
      (error.status !== undefined && RETRYABLE_READ_STATUSES.has(error.status));
    if (!retryable || error.outcome !== 'not_executed') return undefined;
    if (error.retryAfterMs !== undefined) {
      return error.retryAfterMs <= this.#options.maxRetryAfterMs ? error.retryAfterMs : undefined;
    }
    // Full jitter: spreads retries of many callers instead of synchronising them.
    const ceiling = Math.min(BACKOFF_CAP_MS, BACKOFF_BASE_MS * 2 ** (attempt - 1));
    return Math.round(this.#options.random() * ceiling);
  }

  #logCall(result: ApiResponse): void {
    const { operationId, status, requestId, durationMs, attempts } = result;
    const spec = OPERATIONS[operationId];
    this.#options.logger.info(
      {
        operationId,
        method: spec.method,
        status,
        requestId,
        durationMs: round(durationMs),
        attempts,
      },
      'payments call',
    );
    this.#options.logger.trace(
      { operationId, responseBody: result.body },
      'payments response body',
    );
  }

  #logFailure(
    error: PaymentsApiError,
    durationMs: number,
    attempt: number,
    retryInMs: number | undefined,
  ): void {
    const level = error.outcome === 'unknown' ? 'error' : 'warn';
    this.#options.logger[level](
      { ...error.toLog(), durationMs: round(durationMs), attempt, retryInMs },
      'payments call failed',
    );
  }
}

/** The body as an object for a trace line (redacted there by field name), or a placeholder. */
function parseForLog(body: string): unknown {
  try {
    return JSON.parse(body);
  } catch {
    return '[unparsable body]';
  }
}

function parseSuccessBody(
  operationId: OperationId,
  isWrite: boolean,
  status: number,
  requestId: string | undefined,
  text: string,
): unknown {
  if (text.trim() === '') return undefined;
  try {
    return parseJsonPreservingDecimals(text);
  } catch (cause) {
    const details = { operationId, status, requestId, cause };
    // A write that succeeded with an unreadable reply was executed, but payops cannot tell
    // which record it made: report it as unknown so it is reconciled, never resubmitted.
    throw isWrite
      ? new OutcomeUnknownError('unreadable_success_reply', details)
      : new MalformedResponseError(`${operationId} answered with malformed JSON`, details);
  }
}

async function readText(
  body: AsyncIterable<Buffer> & { destroy(): void },
  limit: number,
): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    size += chunk.length;
    if (size > limit) {
      body.destroy();
      break;
    }
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}

const REQUEST_ID_HEADERS = [
  'x-request-id',
  'request-id',
  'x-correlation-id',
  'x-amzn-requestid',
  'x-trace-id',
];

function requestIdFromHeaders(
  headers: Record<string, string | string[] | undefined>,
): string | undefined {
  for (const name of REQUEST_ID_HEADERS) {
    const value = headers[name];
    const text = Array.isArray(value) ? value[0] : value;
    if (text) return text.slice(0, 200);
  }
  return undefined;
}

/** `Retry-After` in seconds or as an HTTP date, in milliseconds from now. */
export function parseRetryAfter(
  value: string | string[] | undefined,
  now = Date.now(),
): number | undefined {
  const text = Array.isArray(value) ? value[0] : value;
  if (!text) return undefined;
  if (/^\d+$/.test(text.trim())) return Number(text.trim()) * 1000;
  const date = Date.parse(text);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

function errorCode(error: unknown): string {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : '';
}

function round(ms: number): number {
  return Math.round(ms * 10) / 10;
}
