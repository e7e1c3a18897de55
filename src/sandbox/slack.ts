import { EventEmitter } from 'node:events';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import { SlackDriver } from './slack-driver.ts';
import {
  type ApiArgs,
  type ApiReply,
  DEFAULT_CHANNELS,
  DEFAULT_SLACK,
  DEFAULT_USER_GROUPS,
  DEFAULT_USERS,
  isObject,
  type JsonObject,
  type ResponseUrlContext,
  type SlackChannel,
  type SlackIdentity,
  type SlackMessage,
  type SlackUser,
  SlackWorkspace,
  type UploadedFile,
  type UserGroupConfig,
} from './slack-workspace.ts';

/**
 * A local Slack for a real Bolt app to run against over real HTTP: one node:http server that
 * plays the Web API (`{url}/api/{method}`, give the bot `slackApiUrl: emulation.apiUrl`), takes
 * `response_url` posts (`{url}/respond/{id}`) and file uploads (`{url}/upload/{id}`), records
 * every call, and lets tests, the demo and the benchmark wait for what the bot does.
 * `emulation.driver(botUrl)` sends signed requests to the bot the way Slack does.
 */

export * from './slack-driver.ts';
export * from './slack-workspace.ts';

export interface SlackEmulationOptions extends Partial<SlackIdentity> {
  /** Defaults to 0: any free port. The server always binds 127.0.0.1. */
  readonly port?: number;
  readonly users?: readonly SlackUser[];
  readonly userGroups?: Readonly<Record<string, UserGroupConfig>>;
  readonly channels?: Readonly<Record<string, SlackChannel>>;
  /** 'free' makes every usergroups.* call answer plan_upgrade_required, as Slack does. */
  readonly plan?: 'paid' | 'free';
  readonly homeTabEnabled?: boolean;
  /** How long a trigger_id stays valid; Slack's is about 3 s. */
  readonly triggerTtlMs?: number;
  /** How long a response_url stays valid; Slack's is 30 min. */
  readonly responseUrlTtlMs?: number;
  /** The clock for trigger/response_url expiry, message ts and record times; tests may move it. */
  readonly now?: () => number;
  /**
   * Socket Mode: `apps.connections.open` with this app-level token answers this WebSocket URL,
   * where the caller runs the Socket Mode side.
   */
  readonly socketMode?: { readonly appToken: string; readonly url: string };
}

export interface ApiCall {
  readonly method: string;
  readonly args: ApiArgs;
  readonly at: number;
  readonly status: number;
  readonly response: ApiReply;
}

export interface ResponseUrlPost {
  readonly id: string;
  /** The JSON body, or the raw text where it was not JSON. */
  readonly body: unknown;
  readonly at: number;
  /**
   * 200, or 404 for unknown, expired or used-up URLs (Slack's limit is five posts; after
   * `forgetHistory`, an answered URL is unknown).
   */
  readonly status: number;
}

export interface FaultOptions {
  /** How many of the next calls fail (default 1). */
  readonly times?: number;
  /** HTTP status to answer with; default 429 for 'ratelimited' and 200 otherwise, as Slack does. */
  readonly status?: number;
  /** Retry-After for 'ratelimited' (default 1 s). */
  readonly retryAfterSec?: number;
}

export interface WaitOptions {
  readonly timeoutMs?: number;
  /** Named in the timeout error. */
  readonly description?: string;
}

interface Fault {
  readonly error?: string;
  readonly delayMs?: number;
  readonly status?: number;
  readonly retryAfterSec?: number;
  remaining: number;
}

interface ApiAnswer {
  readonly status: number;
  readonly reply: ApiReply;
  readonly headers?: Record<string, string>;
}

const DEFAULT_WAIT_MS = 5_000;
/** Values the WebClient JSON-encodes inside form bodies. */
const JSON_ARGUMENTS = ['blocks', 'attachments', 'view', 'files', 'metadata'] as const;

export class SlackEmulation {
  /** `http://127.0.0.1:PORT`, no trailing slash. */
  readonly url: string;
  private readonly socketMode: SlackEmulationOptions['socketMode'];
  /** `{url}/api/`, for the bot's `clientOptions.slackApiUrl`. */
  readonly apiUrl: string;
  readonly config: SlackIdentity;
  private readonly workspace: SlackWorkspace;
  private readonly now: () => number;
  private readonly recordedCalls: ApiCall[] = [];
  private readonly responsePosts: ResponseUrlPost[] = [];
  private readonly faults = new Map<string, Fault[]>();
  /** How many posts of each response_url `nextResponse` has handed out. */
  private readonly responseCursors = new Map<string, number>();
  private readonly changes = new EventEmitter();

  constructor(
    private readonly server: Server,
    port: number,
    options: SlackEmulationOptions,
  ) {
    this.url = `http://127.0.0.1:${port}`;
    this.apiUrl = `${this.url}/api/`;
    this.now = options.now ?? Date.now;
    this.socketMode = options.socketMode;
    this.config = {
      signingSecret: options.signingSecret ?? DEFAULT_SLACK.signingSecret,
      botToken: options.botToken ?? DEFAULT_SLACK.botToken,
      botUserId: options.botUserId ?? DEFAULT_SLACK.botUserId,
      botId: options.botId ?? DEFAULT_SLACK.botId,
      teamId: options.teamId ?? DEFAULT_SLACK.teamId,
      teamDomain: options.teamDomain ?? DEFAULT_SLACK.teamDomain,
      apiAppId: options.apiAppId ?? DEFAULT_SLACK.apiAppId,
    };
    this.workspace = new SlackWorkspace({
      ...this.config,
      users: options.users ?? DEFAULT_USERS,
      userGroups: options.userGroups ?? DEFAULT_USER_GROUPS,
      channels: options.channels ?? DEFAULT_CHANNELS,
      plan: options.plan ?? 'paid',
      homeTabEnabled: options.homeTabEnabled ?? true,
      triggerTtlMs: options.triggerTtlMs ?? 3_000,
      responseUrlTtlMs: options.responseUrlTtlMs ?? 30 * 60_000,
      baseUrl: this.url,
      now: this.now,
    });
    // Many tests and benchmark requests may wait at once.
    this.changes.setMaxListeners(0);
    server.on('request', (req: IncomingMessage, res: ServerResponse) => {
      this.route(req, res).catch((error: unknown) => {
        if (!res.headersSent) res.writeHead(500, { 'Content-Type': 'text/plain' });
        res.end(`emulation error: ${error instanceof Error ? error.message : String(error)}`);
      });
    });
  }

  /** A signed-request driver aimed at the bot's endpoint, e.g. `botEventsUrl(server)`. */
  driver(botUrl: string): SlackDriver {
    return new SlackDriver(this, botUrl);
  }

  // ---- records ----

  get calls(): readonly ApiCall[] {
    return this.recordedCalls;
  }

  get responses(): readonly ResponseUrlPost[] {
    return this.responsePosts;
  }

  callsTo(method: string): ApiCall[] {
    return this.recordedCalls.filter((call) => call.method === method);
  }

  responsesTo(responseUrlId: string): ResponseUrlPost[] {
    return this.responsePosts.filter((post) => post.id === responseUrlId);
  }

  /**
   * Drops the records so far (`calls` and `responses` start again empty) and what the workspace
   * has used up (ephemeral messages, answered response_urls, spent trigger_ids). For a long
   * run such as the benchmark's, which would otherwise hold every answer, about 2 KB each.
   */
  forgetHistory(): void {
    this.recordedCalls.length = 0;
    this.responsePosts.length = 0;
    this.responseCursors.clear();
    this.workspace.forgetUsedUp();
  }

  // ---- the workspace model ----

  /** What channel C shows now: its messages in order, and the ephemeral ones apart. */
  channel(channelId: string): { messages: SlackMessage[]; ephemeral: SlackMessage[] } {
    return this.workspace.channel(channelId);
  }

  message(channelId: string, ts: string): SlackMessage | undefined {
    return this.workspace.message(channelId, ts);
  }

  view(viewId: string): JsonObject | undefined {
    return this.workspace.view(viewId);
  }

  user(userId: string): SlackUser | undefined {
    return this.workspace.user(userId);
  }

  channelName(channelId: string): string {
    return this.workspace.channelName(channelId);
  }

  files(): UploadedFile[] {
    return [...this.workspace.files.values()].map(copyFile);
  }

  /** A file uploaded through files.getUploadURLExternal, its bytes included. */
  file(fileId: string): UploadedFile | undefined {
    const file = this.workspace.files.get(fileId);
    return file && copyFile(file);
  }

  /**
   * A trigger_id that views.open/push accept once, within triggerTtlMs. `viewId` names the modal
   * the interaction happened in, whose stack views.push grows.
   */
  issueTriggerId(viewId?: string): string {
    return this.workspace.issueTriggerId(viewId);
  }

  issueResponseUrl(context: ResponseUrlContext): { id: string; url: string } {
    return this.workspace.issueResponseUrl(context);
  }

  /**
   * Forgets response_urls nobody will post to: a long run (the benchmark's) issues one per
   * request it builds, and would otherwise hold those never sent, or sent to an app that never
   * answers, to the end. Posting to one afterwards gets no_service.
   */
  forgetResponseUrls(ids: Iterable<string>): void {
    this.workspace.forgetResponseUrls(ids);
  }

  expireResponseUrl(responseUrlId: string): void {
    this.workspace.expireResponseUrl(responseUrlId);
  }

  // ---- faults ----

  /**
   * The next call(s) of `method` answer `{ ok: false, error }`; 'ratelimited' is a 429 with
   * Retry-After. Faults queue per method and apply in order, one per call.
   */
  failNext(method: string, error: string, options: FaultOptions = {}): void {
    this.queueFault(method, {
      error,
      status: options.status,
      retryAfterSec: options.retryAfterSec,
      remaining: options.times ?? 1,
    });
  }

  /** The next call(s) of `method` are answered only after `delayMs`. */
  delayNext(method: string, delayMs: number, options: { times?: number } = {}): void {
    this.queueFault(method, { delayMs, remaining: options.times ?? 1 });
  }

  // ---- waiting ----

  /**
   * Resolves with the first value `select` returns that is not undefined, null or false. It is
   * asked now and again after every recorded change, so nothing polls.
   */
  waitFor<T>(select: () => T | false | null | undefined, options: WaitOptions = {}): Promise<T> {
    const timeoutMs = options.timeoutMs ?? DEFAULT_WAIT_MS;
    return new Promise<T>((resolve, reject) => {
      const stop = () => {
        clearTimeout(timer);
        this.changes.off('change', check);
      };
      const check = () => {
        try {
          const value = select();
          if (value === undefined || value === null || value === false) return;
          stop();
          resolve(value);
        } catch (error) {
          stop();
          reject(error);
        }
      };
      const timer = setTimeout(() => {
        stop();
        const what = options.description ?? 'a condition';
        reject(new Error(`Slack emulation: no ${what} within ${timeoutMs} ms`));
      }, timeoutMs);
      this.changes.on('change', check);
      check();
    });
  }

  /** The first recorded call of `method` (already made or still to come) that matches. */
  waitForCall(
    method: string,
    matches: (call: ApiCall) => boolean = () => true,
    options: WaitOptions = {},
  ): Promise<ApiCall> {
    return this.waitFor(
      () => this.recordedCalls.find((call) => call.method === method && matches(call)),
      { description: `${method} call`, ...options },
    );
  }

  /** Each call hands out the following post to that response_url: the first, then the second… */
  nextResponse(responseUrlId: string, options: WaitOptions = {}): Promise<ResponseUrlPost> {
    const index = this.responseCursors.get(responseUrlId) ?? 0;
    this.responseCursors.set(responseUrlId, index + 1);
    return this.waitFor(() => this.responsesTo(responseUrlId)[index], {
      description: `post #${index + 1} to response_url ${responseUrlId}`,
      ...options,
    });
  }

  close(): Promise<void> {
    return new Promise((resolve, reject) => {
      this.server.close((error) => (error === undefined ? resolve() : reject(error)));
      // Keep-alive sockets from the bot's fetch would otherwise hold close() open.
      this.server.closeAllConnections();
    });
  }

  // ---- HTTP ----

  private async route(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const [, area, name] = new URL(req.url ?? '/', this.url).pathname.split('/');
    if (req.method !== 'POST' || name === undefined || name === '') {
      res.writeHead(404, { 'Content-Type': 'text/plain' }).end('not_found');
      return;
    }
    const raw = await readBody(req);
    switch (area) {
      case 'api':
        return this.answerApiCall(name, req, raw, res);
      case 'respond':
        return this.answerResponseUrl(name, raw, res);
      case 'upload':
        return this.answerUpload(name, req, raw, res);
      default:
        res.writeHead(404, { 'Content-Type': 'text/plain' }).end('not_found');
    }
  }

  private async answerApiCall(
    method: string,
    req: IncomingMessage,
    raw: Buffer,
    res: ServerResponse,
  ): Promise<void> {
    const fault = this.takeFault(method);
    if (fault?.delayMs !== undefined) await sleep(fault.delayMs);
    const args = decodeArgs(req.headers['content-type'], raw);
    const answer =
      args === undefined
        ? { status: 200, reply: { ok: false, error: 'invalid_json' } }
        : this.apiAnswer(method, args, req.headers.authorization, fault);
    // Recorded before answering, so a bot that awaited the call always finds it recorded.
    this.record(this.recordedCalls, {
      method,
      args: args ?? {},
      at: this.now(),
      status: answer.status,
      response: answer.reply,
    });
    res
      .writeHead(answer.status, {
        'Content-Type': 'application/json; charset=utf-8',
        ...answer.headers,
      })
      .end(JSON.stringify(answer.reply));
  }

  private apiAnswer(
    method: string,
    args: ApiArgs,
    authorization: string | undefined,
    fault: Fault | undefined,
  ): ApiAnswer {
    // Slack also takes the token as a form field.
    const token = authorization?.match(/^Bearer (.+)$/)?.[1] ?? args.token;
    if (method === 'apps.connections.open') {
      // The only call made with the app-level token rather than the bot token.
      if (!this.socketMode)
        return { status: 200, reply: { ok: false, error: 'not_allowed_token_type' } };
      if (token !== this.socketMode.appToken)
        return { status: 200, reply: { ok: false, error: 'invalid_auth' } };
      return { status: 200, reply: { ok: true, url: this.socketMode.url } };
    }
    if (!this.workspace.knowsMethod(method)) {
      return { status: 200, reply: { ok: false, error: 'unknown_method' } };
    }
    if (token === undefined) return { status: 200, reply: { ok: false, error: 'not_authed' } };
    if (token !== this.config.botToken) {
      return { status: 200, reply: { ok: false, error: 'invalid_auth' } };
    }
    if (fault?.error === 'ratelimited') {
      return {
        status: fault.status ?? 429,
        reply: { ok: false, error: 'ratelimited' },
        headers: { 'Retry-After': String(fault.retryAfterSec ?? 1) },
      };
    }
    if (fault?.error !== undefined) {
      return { status: fault.status ?? 200, reply: { ok: false, error: fault.error } };
    }
    return { status: 200, reply: this.workspace.call(method, args) };
  }

  private answerResponseUrl(id: string, raw: Buffer, res: ServerResponse): void {
    const text = raw.toString('utf8');
    const body = parseJson(text) ?? text;
    const answer = this.workspace.postToResponseUrl(id, body);
    this.record(this.responsePosts, { id, body, at: this.now(), status: answer.status });
    res.writeHead(answer.status, { 'Content-Type': 'text/plain' }).end(answer.body);
  }

  private async answerUpload(
    fileId: string,
    req: IncomingMessage,
    raw: Buffer,
    res: ServerResponse,
  ): Promise<void> {
    const bytes = await uploadedBytes(req.headers['content-type'], raw);
    if (!this.workspace.receiveUpload(fileId, bytes)) {
      res.writeHead(404, { 'Content-Type': 'text/plain' }).end('file_not_found');
      return;
    }
    this.changes.emit('change');
    res.writeHead(200, { 'Content-Type': 'text/plain' }).end(`OK - ${bytes.length}`);
  }

  private record<T>(list: T[], entry: T): void {
    list.push(entry);
    this.changes.emit('change');
  }

  private queueFault(method: string, fault: Fault): void {
    const queue = this.faults.get(method) ?? [];
    queue.push(fault);
    this.faults.set(method, queue);
  }

  private takeFault(method: string): Fault | undefined {
    const queue = this.faults.get(method);
    const fault = queue?.[0];
    if (queue === undefined || fault === undefined) return undefined;
    fault.remaining -= 1;
    if (fault.remaining <= 0) queue.shift();
    return fault;
  }
}

export async function startSlackEmulation(
  options: SlackEmulationOptions = {},
): Promise<SlackEmulation> {
  const server = createServer();
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address();
  if (address === null || typeof address === 'string')
    throw new Error('Slack emulation: no TCP port');
  return new SlackEmulation(server, address.port, options);
}

function copyFile(file: UploadedFile): UploadedFile {
  return { ...file, ...(file.bytes === undefined ? {} : { bytes: Buffer.from(file.bytes) }) };
}

async function readBody(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/**
 * Web API arguments from a form or JSON body, as the WebClient sends them. Returns undefined
 * for a JSON body that does not parse (Slack's invalid_json).
 */
function decodeArgs(contentType: string | undefined, raw: Buffer): ApiArgs | undefined {
  const text = raw.toString('utf8');
  const isJson = contentType?.toLowerCase().startsWith('application/json') ?? false;
  const parsed: unknown = isJson ? parseJson(text) : Object.fromEntries(new URLSearchParams(text));
  if (!isObject(parsed)) return undefined;
  for (const key of JSON_ARGUMENTS) {
    const value = parsed[key];
    // Text that is not JSON stays text; the method then answers invalid_blocks_format or the like.
    if (typeof value === 'string') parsed[key] = parseJson(value) ?? value;
  }
  return parsed;
}

/** The WebClient uploads multipart form data (one file part); other clients may post raw bytes. */
async function uploadedBytes(contentType: string | undefined, raw: Buffer): Promise<Buffer> {
  if (contentType === undefined || !contentType.toLowerCase().startsWith('multipart/form-data')) {
    return raw;
  }
  const form = await new Response(new Uint8Array(raw), {
    headers: { 'Content-Type': contentType },
  }).formData();
  const file = [...form.values()].find((value) => typeof value !== 'string');
  return file === undefined ? Buffer.alloc(0) : Buffer.from(await file.arrayBuffer());
}
