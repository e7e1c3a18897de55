/**
 * The Payments API sandbox: the whole spec over real HTTP, on seeded in-memory data, with faults
 * that can be injected per operation. The provider has no sandbox (spec part 1); teams rehearse
 * against this one, and our tests, demo and benchmark run on it.
 *
 * Routes come from the operations catalogue; nothing here restates a path, a method or a scope.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import {
  isWrite,
  missingScopes,
  OPERATION_IDS,
  OPERATIONS,
  type OperationId,
  requiredScopes,
} from '../../domain/operations.ts';
import { jsonText } from './json-text.ts';
import {
  type Business,
  createSandboxState,
  type Movement,
  newId,
  SANDBOX_BUSINESS,
  SANDBOX_KEY,
  SANDBOX_KEYS,
  type SandboxKey,
  type SandboxState,
} from './payments-data.ts';
import { errorBody, SandboxError } from './payments-errors.ts';
import { checkedListView, type ListView, pagingParameter } from './payments-lists.ts';
import { HANDLERS, type Reply } from './payments-operations.ts';
import { parseBody, parseQuery, scopeBearingQueryNames } from './payments-validation.ts';
import { PROFILES, type ProfileName, type ProviderProfile } from './provider-profiles.ts';

export {
  SANDBOX_BUSINESS,
  SANDBOX_IDS,
  SANDBOX_KEY,
  SANDBOX_KEYS,
  SANDBOX_OTHER_BUSINESS,
  type SandboxKey,
} from './payments-data.ts';
export type { ListView, PagingStyle } from './payments-lists.ts';
export { TRANSFERS_LIMIT } from './payments-validation.ts';
export {
  isProfileName,
  PROFILE_NAMES,
  PROFILES,
  type ProfileName,
  type ProviderProfile,
} from './provider-profiles.ts';

export interface SandboxOptions {
  /** Default 0: an ephemeral port. */
  port?: number;
  /** Default '127.0.0.1'. */
  host?: string;
  /** Default SANDBOX_KEYS. */
  keys?: Record<string, SandboxKey>;
  /** Added to every response (default 0); change it at runtime with `setLatency`. */
  latencyMs?: number;
  /** How fast payout and transfer statuses advance (default 5000). */
  statusStepMs?: number;
  /** The clock (default Date.now), so tests can advance time. */
  now?: () => number;
  /**
   * How lists show records and pages (default: the profile's; the default profile's is one page,
   * as sent); change it with `setListView`.
   */
  listView?: ListView;
  /**
   * The provider the sandbox plays (default 'default'): a named profile, or a test's own (a
   * named one with a record shown otherwise, say); see provider-profiles.ts.
   */
  profile?: ProfileName | ProviderProfile;
}

export type FaultKind =
  | 'latency'
  | 'status'
  | 'hang'
  | 'reset'
  | 'malformed_json'
  | 'oversized'
  | 'execute_then_drop';

export interface Fault {
  kind: FaultKind;
  /** Only requests of this operation; without it, every request except `health`. */
  operationId?: OperationId;
  /** How many matching requests it applies to (default: until cleared). */
  times?: number;
  /** For 'latency' (default 1000). */
  latencyMs?: number;
  /** For 'status' (default 500). */
  status?: number;
  /** For 'status': sets the Retry-After header. */
  retryAfterSeconds?: number;
  /** For 'status': execute the write first, then answer the status (default false). */
  execute?: boolean;
  /** For 'status': the error body's message (a provider that echoes what it was sent, say). */
  message?: string;
  /** For 'oversized': the reply's size in bytes (default 8 MiB). */
  bytes?: number;
}

export interface RecordedRequest {
  operationId: OperationId | undefined;
  method: string;
  /** The path as received, e.g. `/v1/payouts`. */
  path: string;
  query: Record<string, string>;
  body: string;
  hadApiKey: boolean;
  requestId: string;
  at: number;
  /** `performance.now()` at arrival: sub-millisecond timing for a benchmark in the same process. */
  hrAt: number;
  /** A write that changed state (whatever the client got back). */
  executed: boolean;
}

export interface PaymentsSandbox {
  /** Base URL ending in '/v1', e.g. http://127.0.0.1:PORT/v1 */
  url: string;
  port: number;
  /** Every request received, in order: the provider's view. */
  requests: RecordedRequest[];
  /** Empties `requests`, for a long run (the benchmark's) that would otherwise keep them all. */
  forgetRequests(): void;
  addFault(fault: Fault): void;
  clearFaults(): void;
  setLatency(ms: number): void;
  /** How lists show their records and pages from now on, instead of the profile's: see `ListView`. */
  setListView(view: ListView): void;
  /** The provider the sandbox plays from now on, its list view with it (see `SandboxOptions`). */
  setProfile(profile: ProfileName | ProviderProfile): void;
  /**
   * Moves a payout, transfer or deposit to `status` (any word, as a provider may use) from now
   * on, instead of the timed steps; false when no record has that id.
   */
  setRecordStatus(id: string, status: string): boolean;
  /** Takes a payout, transfer or deposit out of its list for good; false when there is none. */
  removeRecord(id: string): boolean;
  /** Also destroys hung and open sockets, so it never blocks. */
  close(): Promise<void>;
}

const API_PREFIX = '/v1';
/** Sandbox's choice: larger bodies answer 413. */
const MAX_BODY_BYTES = 1024 * 1024;
const DEFAULT_STATUS_STEP_MS = 5000;
const DEFAULT_FAULT_LATENCY_MS = 1000;
const DEFAULT_OVERSIZED_BYTES = 8 * 1024 * 1024;

function profileOf(profile: ProfileName | ProviderProfile): ProviderProfile {
  return typeof profile === 'string' ? PROFILES[profile] : profile;
}

/** The environment that points payops's Payments client at `sandbox`, with its seeded key. */
export function sandboxPaymentsEnv(sandbox: Pick<PaymentsSandbox, 'url'>) {
  return {
    PAYMENTS_BASE_URL: sandbox.url,
    PAYMENTS_API_KEY: SANDBOX_KEY.full,
    PAYMENTS_EXPECTED_CUSTOMER_ID: SANDBOX_BUSINESS.id,
  };
}

export async function startPaymentsSandbox(options: SandboxOptions = {}): Promise<PaymentsSandbox> {
  const sandbox = new SandboxServer(options);
  await sandbox.listen(options.port ?? 0, options.host ?? '127.0.0.1');
  return sandbox;
}

// ——— routing from the catalogue ———

type Segment = { literal: string } | { param: string };

interface Route {
  id: OperationId;
  method: string;
  segments: Segment[];
}

/** Literal segments before parameters, so `/transfers/payment-route` would beat `/transfers/{id}`. */
const ROUTES: readonly Route[] = OPERATION_IDS.map((id) => ({
  id,
  method: OPERATIONS[id].method,
  segments: OPERATIONS[id].path
    .split('/')
    .slice(1)
    .map((part): Segment => {
      const param = /^\{(\w+)\}$/.exec(part)?.[1];
      return param ? { param } : { literal: part };
    }),
})).sort((a, b) => literalCount(b) - literalCount(a));

function literalCount(route: Route): number {
  return route.segments.filter((segment) => 'literal' in segment).length;
}

type Resolution = { id: OperationId; params: Record<string, string> } | { error: SandboxError };

function resolveRoute(method: string, path: string): Resolution {
  // Built only when needed: an Error captures a stack, and nearly every request has a route.
  const notFound = () => ({
    error: new SandboxError(404, 'ROUTE_NOT_FOUND', `No route ${method} ${path}`),
  });
  if (!path.startsWith(`${API_PREFIX}/`)) return notFound();
  const parts = path.slice(API_PREFIX.length + 1).split('/');
  const matches = ROUTES.flatMap((route) => {
    const params = matchSegments(route, parts);
    return params ? [{ route, params }] : [];
  });
  const match = matches.find(({ route }) => route.method === method);
  if (match) return { id: match.route.id, params: match.params };
  if (matches.length === 0) return notFound();
  const allowed = [...new Set(matches.map(({ route }) => route.method))].join(', ');
  return {
    error: new SandboxError(405, 'METHOD_NOT_ALLOWED', `${path} accepts ${allowed}`, {
      Allow: allowed,
    }),
  };
}

function matchSegments(route: Route, parts: string[]): Record<string, string> | undefined {
  if (parts.length !== route.segments.length) return undefined;
  const params: Record<string, string> = {};
  for (const [index, segment] of route.segments.entries()) {
    const part = parts[index] ?? '';
    if ('literal' in segment) {
      if (part !== segment.literal) return undefined;
      continue;
    }
    const value = decodeSegment(part);
    if (!value) return undefined;
    params[segment.param] = value;
  }
  return params;
}

function decodeSegment(part: string): string | undefined {
  try {
    return decodeURIComponent(part);
  } catch {
    return undefined;
  }
}

// ——— faults ———

interface ArmedFault {
  fault: Fault;
  remaining: number;
}

interface FaultPlan {
  extraLatencyMs: number;
  /** The fault that decides the answer, if any: the first armed one that matches. */
  outcome: Fault | undefined;
}

class FaultBook {
  private armed: ArmedFault[] = [];

  add(fault: Fault): void {
    const { times, status } = fault;
    if (times !== undefined && !(Number.isInteger(times) && times > 0)) {
      throw new RangeError('fault.times must be a positive integer');
    }
    if (status !== undefined && !(Number.isInteger(status) && status >= 400 && status <= 599)) {
      throw new RangeError('fault.status must be an HTTP error status (400 to 599)');
    }
    this.armed.push({ fault: { ...fault }, remaining: times ?? Number.POSITIVE_INFINITY });
  }

  clear(): void {
    this.armed = [];
  }

  /** The faults for one request; only those that apply are counted down. */
  take(operationId: OperationId | undefined): FaultPlan {
    const plan: FaultPlan = { extraLatencyMs: 0, outcome: undefined };
    for (const entry of this.armed) {
      const { fault } = entry;
      if (!appliesTo(fault, operationId)) continue;
      if (fault.kind === 'latency') {
        plan.extraLatencyMs += fault.latencyMs ?? DEFAULT_FAULT_LATENCY_MS;
      } else if (plan.outcome === undefined) {
        plan.outcome = fault;
      } else {
        continue;
      }
      entry.remaining -= 1;
    }
    this.armed = this.armed.filter((entry) => entry.remaining > 0);
    return plan;
  }
}

/** A fault without an operation applies to every request but `health`, which stays a clean probe. */
function appliesTo(fault: Fault, operationId: OperationId | undefined): boolean {
  return fault.operationId === undefined
    ? operationId !== 'health'
    : fault.operationId === operationId;
}

/** Whether the request is handled (and a write executed) before the fault shapes the answer. */
function executesUnder(outcome: Fault | undefined): boolean {
  switch (outcome?.kind) {
    case undefined:
    case 'malformed_json':
    case 'oversized':
    case 'execute_then_drop':
      return true;
    case 'status':
      return outcome.execute === true;
    default:
      return false;
  }
}

/** Sandbox's choice of codes for injected failures. */
const FAULT_CODES: Readonly<Record<number, string>> = {
  429: 'RATE_LIMITED',
  500: 'INTERNAL_ERROR',
  502: 'BAD_GATEWAY',
  503: 'SERVICE_UNAVAILABLE',
  504: 'GATEWAY_TIMEOUT',
};

// ——— the server ———

interface HttpReply extends Reply {
  headers?: Readonly<Record<string, string>>;
}

class SandboxServer implements PaymentsSandbox {
  url = '';
  port = 0;
  readonly requests: RecordedRequest[] = [];
  private readonly server: Server;
  private readonly state: SandboxState = createSandboxState();
  private readonly faults = new FaultBook();
  private readonly sockets = new Set<Socket>();
  private readonly timers = new Set<NodeJS.Timeout>();
  private readonly keys: Record<string, SandboxKey>;
  private readonly now: () => number;
  private readonly statusStepMs: number;
  private latencyMs = 0;
  private listView: ListView;
  private profile: ProviderProfile;

  constructor(options: SandboxOptions) {
    this.keys = options.keys ?? SANDBOX_KEYS;
    this.now = options.now ?? Date.now;
    this.statusStepMs = options.statusStepMs ?? DEFAULT_STATUS_STEP_MS;
    this.setLatency(options.latencyMs ?? 0);
    this.profile = profileOf(options.profile ?? 'default');
    this.listView = checkedListView(options.listView ?? this.profile.list);
    this.server = createServer((request, response) => {
      // A failure here is the client going away mid-request: nothing left to answer.
      this.handle(request, response).catch(() => response.destroy());
    });
    this.server.on('connection', (socket) => {
      this.sockets.add(socket);
      socket.once('close', () => this.sockets.delete(socket));
    });
    this.server.on('clientError', (_error, socket) => answerUnparseable(socket));
  }

  async listen(port: number, host: string): Promise<void> {
    await new Promise<void>((resolve, reject) => {
      this.server.once('error', reject);
      this.server.listen(port, host, () => {
        this.server.off('error', reject);
        resolve();
      });
    });
    this.port = (this.server.address() as AddressInfo).port;
    this.url = `http://${host.includes(':') ? `[${host}]` : host}:${this.port}${API_PREFIX}`;
  }

  addFault(fault: Fault): void {
    this.faults.add(fault);
  }

  clearFaults(): void {
    this.faults.clear();
  }

  setLatency(ms: number): void {
    if (!(Number.isFinite(ms) && ms >= 0)) {
      throw new RangeError('latency must be a non-negative number');
    }
    this.latencyMs = ms;
  }

  setListView(view: ListView): void {
    this.listView = checkedListView(view);
  }

  setProfile(profile: ProfileName | ProviderProfile): void {
    this.profile = profileOf(profile);
    this.listView = checkedListView(this.profile.list);
  }

  forgetRequests(): void {
    this.requests.length = 0;
  }

  setRecordStatus(id: string, status: string): boolean {
    const movement = this.movementsHolding(id)?.find((each) => each.id === id);
    if (movement) movement.fixedStatus = status;
    return movement !== undefined;
  }

  removeRecord(id: string): boolean {
    const movements = this.movementsHolding(id);
    movements?.splice(
      movements.findIndex((each) => each.id === id),
      1,
    );
    return movements !== undefined;
  }

  /** The collection of movements, of any business, that holds the record `id`. */
  private movementsHolding(id: string): Movement[] | undefined {
    for (const business of this.state.businesses.values()) {
      for (const movements of [business.deposits, business.transfers, business.payouts]) {
        if (movements.some((each) => each.id === id)) return movements;
      }
    }
    return undefined;
  }

  async close(): Promise<void> {
    for (const timer of this.timers) clearTimeout(timer);
    this.timers.clear();
    // The callback also fires, with an error, when already closed: close() stays idempotent.
    const closed = new Promise<void>((resolve) => this.server.close(() => resolve()));
    for (const socket of this.sockets) socket.destroy();
    await closed;
  }

  private async handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const requestId = newId('req');
    response.setHeader('X-Request-Id', requestId);
    const method = request.method ?? '';
    const target = request.url ?? '';
    const queryStart = target.indexOf('?');
    const path = queryStart === -1 ? target : target.slice(0, queryStart);
    const search = new URLSearchParams(queryStart === -1 ? '' : target.slice(queryStart + 1));
    const recorded: RecordedRequest = {
      operationId: undefined,
      method,
      path,
      query: Object.fromEntries(search),
      body: '',
      hadApiKey: request.headers['x-api-key'] !== undefined,
      requestId,
      at: this.now(),
      hrAt: performance.now(),
      executed: false,
    };
    this.requests.push(recorded);

    const body = await readBody(request);
    recorded.body = body ?? '';
    const route = resolveRoute(method, path);
    if ('id' in route) recorded.operationId = route.id;
    const { extraLatencyMs, outcome } = this.faults.take(recorded.operationId);
    if (outcome?.kind === 'hang') return; // never answered; close() destroys the socket

    let reply: HttpReply | undefined;
    if (executesUnder(outcome)) {
      reply = this.reply(route, request, body, { path, search }, requestId);
      recorded.executed = 'id' in route && isWrite(route.id) && reply.status < 300;
    }
    await this.pause(this.latencyMs + extraLatencyMs);
    if (response.destroyed) return;

    switch (outcome?.kind) {
      case 'reset':
      case 'execute_then_drop':
        response.destroy();
        return;
      case 'malformed_json':
        if (reply) sendTruncated(response, reply);
        return;
      case 'oversized':
        if (reply) send(response, oversized(reply, outcome.bytes ?? DEFAULT_OVERSIZED_BYTES));
        return;
      case 'status': {
        const status = outcome.status ?? 500;
        const code = FAULT_CODES[status] ?? `HTTP_${status}`;
        const retryAfter = outcome.retryAfterSeconds;
        send(response, {
          status,
          body: errorBody(
            code,
            outcome.message ?? 'The service could not complete the request (sandbox fault)',
            requestId,
          ),
          headers: retryAfter === undefined ? {} : { 'Retry-After': String(retryAfter) },
        });
        return;
      }
      default:
        if (reply) send(response, reply);
    }
  }

  /** The answer the provider would give: authenticate, check scopes and input, then act. */
  private reply(
    route: Resolution,
    request: IncomingMessage,
    body: string | null,
    { path, search }: { path: string; search: URLSearchParams },
    requestId: string,
  ): HttpReply {
    try {
      if (body === null) {
        throw new SandboxError(
          413,
          'PAYLOAD_TOO_LARGE',
          `Bodies are limited to ${MAX_BODY_BYTES} bytes`,
          {
            Connection: 'close',
          },
        );
      }
      if ('error' in route) throw route.error;
      const { id, params } = route;
      if (id === 'health') return { status: 200, body: { status: 'ok' } };
      const { key, business } = this.authenticate(request.headers['x-api-key']);
      const query = parseQuery(id, search, pagingParameter(this.listView));
      const missing = missingScopes(
        requiredScopes(id, scopeBearingQueryNames(id, query)),
        key.scopes,
      );
      if (missing.length > 0) {
        throw new SandboxError(
          403,
          'INSUFFICIENT_API_KEY_SCOPE',
          `This request needs the scope ${missing.join(' and ')}, which the API key does not hold`,
        );
      }
      return HANDLERS[id]({
        state: this.state,
        business,
        scopes: key.scopes,
        params,
        query,
        body: isWrite(id) ? parseBody(id, body) : {},
        now: this.now(),
        statusStepMs: this.statusStepMs,
        listing: { view: this.listView, query, self: `${new URL(this.url).origin}${path}` },
        profile: this.profile,
      });
    } catch (error) {
      if (error instanceof SandboxError) {
        return {
          status: error.status,
          body: errorBody(error.code, error.message, requestId),
          headers: error.headers,
        };
      }
      console.error('payments sandbox: internal error', error);
      return {
        status: 500,
        body: errorBody('INTERNAL_ERROR', 'Internal sandbox error', requestId),
      };
    }
  }

  /** Spec parts 5 and 7: no key, then an unusable key, then a legacy key under review. */
  private authenticate(header: string | string[] | undefined): {
    key: SandboxKey;
    business: Business;
  } {
    const presented = Array.isArray(header) ? header.join(', ') : header;
    if (!presented) {
      throw new SandboxError(
        401,
        'API_KEY_REQUIRED',
        'An API key is required: send it in the X-Api-Key header',
      );
    }
    const key = Object.hasOwn(this.keys, presented) ? this.keys[presented] : undefined;
    const business = key && this.state.businesses.get(key.customerId);
    // Ineligibility answers exactly like a revoked key: the spec makes them indistinguishable.
    if (!key || !business || key.revoked || key.ineligible) {
      throw new SandboxError(401, 'INVALID_API_KEY', 'The API key is invalid or revoked');
    }
    if (key.legacy) {
      throw new SandboxError(
        403,
        'API_KEY_SCOPE_REVIEW_REQUIRED',
        'This legacy API key cannot be used until the review of its scopes is complete',
      );
    }
    return { key, business };
  }

  /** A delay that close() cancels, so no timer outlives the sandbox. */
  private pause(ms: number): Promise<void> {
    if (ms <= 0) return Promise.resolve();
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.timers.delete(timer);
        resolve();
      }, ms);
      this.timers.add(timer);
    });
  }
}

/**
 * The whole body, or null when it is over the limit. An oversized body is still read to its end
 * (and dropped) so that the client sees the 413 rather than a connection torn mid-upload.
 */
function readBody(request: IncomingMessage): Promise<string | null> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    request.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size <= MAX_BODY_BYTES) chunks.push(chunk);
    });
    request.on('end', () =>
      resolve(size <= MAX_BODY_BYTES ? Buffer.concat(chunks).toString('utf8') : null),
    );
    request.on('error', reject);
  });
}

function send(response: ServerResponse, reply: HttpReply): void {
  const text = jsonText(reply.body);
  response.writeHead(reply.status, {
    'Content-Type': 'application/json; charset=utf-8',
    'Content-Length': Buffer.byteLength(text),
    ...reply.headers,
  });
  response.end(text);
}

/** A 200 whose JSON stops halfway: a proper prefix of an object or array is never valid JSON. */
function sendTruncated(response: ServerResponse, reply: HttpReply): void {
  const text = jsonText(reply.body);
  const truncated = text.slice(0, Math.max(1, Math.floor(text.length / 2)));
  response.writeHead(200, {
    'Content-Type': 'application/json; charset=utf-8',
    'Content-Length': Buffer.byteLength(truncated),
  });
  response.end(truncated);
}

/**
 * The reply with its list (`data`) grown by old records of another payee until its JSON holds
 * about `bytes`: a provider that pages nothing, years into its use.
 */
function oversized(reply: HttpReply, bytes: number): HttpReply {
  const body = reply.body as { data?: unknown };
  const listed = Array.isArray(body.data) ? body.data : [];
  const old = (index: number) => ({
    id: `po_old_${String(index).padStart(8, '0')}`,
    status: 'completed',
    amount: '1.00',
    currency: 'USDC',
    beneficiary_name: 'Old Payee',
    beneficiary_account: '000000000001',
    created_at: '2020-01-01T00:00:00.000Z',
  });
  const count = Math.ceil(bytes / JSON.stringify(old(0)).length);
  return {
    ...reply,
    body: { ...body, data: [...listed, ...Array.from({ length: count }, (_, i) => old(i))] },
  };
}

/** A request Node cannot parse never reaches `handle`; it still gets a request id. */
function answerUnparseable(socket: Duplex): void {
  if (!socket.writable) {
    socket.destroy();
    return;
  }
  const requestId = newId('req');
  const text = JSON.stringify(
    errorBody('BAD_REQUEST', 'The request could not be parsed', requestId),
  );
  socket.end(
    `HTTP/1.1 400 Bad Request\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(text)}\r\nX-Request-Id: ${requestId}\r\nConnection: close\r\n\r\n${text}`,
  );
}
