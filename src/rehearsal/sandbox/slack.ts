import { EventEmitter } from 'node:events';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import { observe } from '../observer.ts';
import { SlackDriver } from './slack-driver.ts';
import {
  type ApiArgs,
  type ApiReply,
  DEFAULT_CHANNELS,
  DEFAULT_SLACK,
  DEFAULT_USER_GROUPS,
  DEFAULT_USERS,
  dmChannelFor,
  isObject,
  type JsonObject,
  type MessageAuthor,
  type MessageMetadata,
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
 * every call, and lets tests, the demo and the benchmark wait for what the bot does. Web API
 * calls meet Slack's rate limits (SLACK_RATE_LIMITS) unless `rateLimits: 'off'`.
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
  /**
   * Slack's per-method rate limits (SLACK_RATE_LIMITS), on by default at `scale: 1`; `scale`
   * multiplies every bucket's size and refill rate. 'off' never answers 429 on its own.
   */
  readonly rateLimits?: 'off' | { readonly scale?: number };
}

export type SlackRateTier = 1 | 2 | 3 | 4;

/**
 * Slack's Web API rate limits (docs.slack.dev/apis/web-api/rate-limits, slack-platform-notes §5)
 * as the emulation enforces them: per method for the whole workspace, and for chat.postMessage
 * also per channel. Each is a token bucket that starts full.
 */
export const SLACK_RATE_LIMITS = {
  /** Calls a minute each tier allows: the bucket's size, refilled evenly over the minute. */
  tierPerMinute: { 1: 1, 2: 20, 3: 50, 4: 100 } as Readonly<Record<SlackRateTier, number>>,
  methodTiers: {
    'auth.test': 4,
    'chat.update': 3,
    'chat.postEphemeral': 4,
    'chat.delete': 3,
    'chat.getPermalink': 4,
    'views.open': 4,
    'views.push': 4,
    'views.update': 4,
    'views.publish': 4,
    'users.info': 4,
    'usergroups.list': 2,
    'usergroups.users.list': 2,
    'conversations.open': 3,
    'conversations.info': 3,
    'conversations.history': 3,
    'conversations.replies': 3,
    'files.getUploadURLExternal': 4,
    'files.completeUploadExternal': 4,
    'files.info': 4,
  } as Readonly<Record<string, SlackRateTier>>,
  /** The tier of a method not listed. */
  unlistedTier: 3 as SlackRateTier,
  /** chat.postMessage has no tier: about one a second per channel with short bursts, plus a cap. */
  postMessage: { perChannelPerSecond: 1, perChannelBurst: 3, workspacePerMinute: 300 },
} as const;

export interface RateBucket {
  /** 'channel': one bucket per channel (chat.postMessage's); 'workspace': one for the app. */
  readonly per: 'workspace' | 'channel';
  /** Calls a full bucket lets through at once. */
  readonly capacity: number;
  /** Calls a second it refills with. */
  readonly perSecond: number;
}

/**
 * The buckets a call of `method` draws on, at `scale`. A run of N calls on one bucket takes at
 * least (N - capacity) / perSecond seconds: the floor a benchmark can compare against.
 */
export function rateBuckets(method: string, scale = 1): RateBucket[] {
  // At least one call fits, else a scaled-down Tier 1 bucket could never let one through.
  const bucket = (per: RateBucket['per'], capacity: number, perSecond: number): RateBucket => ({
    per,
    capacity: Math.max(1, capacity * scale),
    perSecond: perSecond * scale,
  });
  const { tierPerMinute, methodTiers, unlistedTier, postMessage } = SLACK_RATE_LIMITS;
  if (method === 'chat.postMessage') {
    return [
      bucket('channel', postMessage.perChannelBurst, postMessage.perChannelPerSecond),
      bucket('workspace', postMessage.workspacePerMinute, postMessage.workspacePerMinute / 60),
    ];
  }
  const perMinute = tierPerMinute[methodTiers[method] ?? unlistedTier];
  return [bucket('workspace', perMinute, perMinute / 60)];
}

/** Which Web API methods an outage covers. */
export type MethodMatcher = string | RegExp | ((method: string) => boolean);

export interface OutageOptions {
  /** HTTP status the covered calls answer (default 500). */
  readonly status?: number;
  /** When the outage ends by itself, on the emulation's clock (`now`); default: when ended. */
  readonly untilMs?: number;
}

export interface ApiCall {
  readonly method: string;
  readonly args: ApiArgs;
  readonly at: number;
  readonly status: number;
  readonly response: ApiReply;
  /** Set by dropAfterNext: the call took effect, but the caller got no answer. */
  readonly dropped?: true;
}

/** A GET of a file's `url_private_download`: `authorized` when it came with the bot token. */
export interface FileDownload {
  readonly fileId: string;
  readonly authorized: boolean;
  readonly at: number;
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
  readonly drop?: boolean;
  readonly status?: number;
  readonly retryAfterSec?: number;
  remaining: number;
}

interface Outage {
  readonly matches: (method: string) => boolean;
  readonly status: number;
  readonly untilMs: number | undefined;
}

interface BucketState {
  tokens: number;
  at: number;
}

/** Slack's token buckets, on the emulation's clock. */
class RateLimiter {
  private readonly buckets = new Map<string, BucketState>();

  constructor(
    readonly scale: number,
    private readonly now: () => number,
  ) {
    if (!(scale > 0 && Number.isFinite(scale))) {
      throw new RangeError(`Slack emulation: rateLimits.scale must be above 0, not ${scale}`);
    }
  }

  /**
   * Takes a token from each bucket the call draws on and returns undefined; or, when one is
   * short, takes none and returns the seconds until all have a token (Retry-After).
   */
  take(method: string, args: ApiArgs): number | undefined {
    const now = this.now();
    const drawn = rateBuckets(method, this.scale).map((limit) => {
      const key = limit.per === 'channel' ? `${method} ${channelKey(args.channel)}` : method;
      return { limit, state: this.refilled(key, limit, now) };
    });
    // Refills in floating point can leave 0.9999… for a whole token.
    const waitSec = Math.max(
      ...drawn.map(({ limit, state }) =>
        1 - state.tokens <= 1e-9 ? 0 : (1 - state.tokens) / limit.perSecond,
      ),
    );
    if (waitSec > 0) return Math.max(1, Math.ceil(waitSec));
    for (const { state } of drawn) state.tokens -= 1;
    return undefined;
  }

  private refilled(key: string, limit: RateBucket, now: number): BucketState {
    const state = this.buckets.get(key) ?? { tokens: limit.capacity, at: now };
    // A clock moved back (tests do) credits nothing, rather than stalling the bucket.
    const elapsedSec = Math.max(0, now - state.at) / 1000;
    state.tokens = Math.min(limit.capacity, state.tokens + elapsedSec * limit.perSecond);
    state.at = now;
    this.buckets.set(key, state);
    return state;
  }
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
  private readonly fileDownloads: FileDownload[] = [];
  private readonly faults = new Map<string, Fault[]>();
  private readonly outages = new Set<Outage>();
  private readonly limiter: RateLimiter | undefined;
  private readonly refusals = new Map<string, number>();
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
    const rateLimits = options.rateLimits ?? {};
    this.limiter =
      rateLimits === 'off' ? undefined : new RateLimiter(rateLimits.scale ?? 1, this.now);
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

  /** The rate limits' scale, or undefined when they are off. */
  get rateLimitScale(): number | undefined {
    return this.limiter?.scale;
  }

  // ---- records ----

  /**
   * How many calls of each method the rate limits refused with 429 so far (failNext's 429s are
   * not counted). `forgetHistory` keeps the count.
   */
  get rateLimited(): Readonly<Record<string, number>> {
    return Object.fromEntries(this.refusals);
  }

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
    this.fileDownloads.length = 0;
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

  /** A message someone other than payops posts in a channel (a member, or another app). */
  postAs(
    author: MessageAuthor,
    channelId: string,
    fields: { text: string; metadata?: MessageMetadata },
  ): SlackMessage {
    return this.workspace.postAs(author, channelId, fields);
  }

  /**
   * A user group's members become `users`, as an admin's change in Slack; returns the
   * `subteam_members_changed` event Slack sends about it, for `driver.event` to deliver.
   */
  changeGroupMembers(
    groupId: string,
    users: readonly string[],
  ): JsonObject & { readonly type: string } {
    return this.workspace.changeGroupMembers(groupId, users);
  }

  view(viewId: string): JsonObject | undefined {
    return this.workspace.view(viewId);
  }

  /** The Home tab last published for `userId` (views.publish), as Slack shows it. */
  homeView(userId: string): JsonObject | undefined {
    return this.workspace.homeView(userId);
  }

  user(userId: string): SlackUser | undefined {
    return this.workspace.user(userId);
  }

  channelName(channelId: string): string {
    return this.workspace.channelName(channelId);
  }

  /**
   * A file `userId` uploads: shared in `channelId` (a message with it is posted there), or, with
   * none, shared nowhere, as a modal's file input uploads it.
   */
  uploadFileAs(
    userId: string,
    file: { name: string; bytes: Buffer; channelId?: string | undefined },
  ): UploadedFile {
    const uploaded = copyFile(this.workspace.uploadFileAs(userId, file));
    this.changes.emit('change');
    return uploaded;
  }

  /** A file as files.info shows it: what a file input's state carries in its `files`. */
  fileObject(fileId: string): JsonObject {
    return this.workspace.fileObject(fileId);
  }

  /** Every GET of a file's download URL so far, with whether it carried the bot token. */
  get downloads(): readonly FileDownload[] {
    return this.fileDownloads;
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

  /**
   * The next call(s) of `method` take effect and are recorded (`dropped: true`), then the
   * connection closes unanswered: the caller sees a socket hang-up though, say, its message
   * was posted.
   */
  dropAfterNext(method: string, options: { times?: number } = {}): void {
    this.queueFault(method, { drop: true, remaining: options.times ?? 1 });
  }

  /**
   * Until the returned function is called (or `untilMs` passes), Web API calls of the matching
   * methods answer `status` with Slack's internal_error, do nothing and are recorded. Queued
   * faults wait for the calls after it.
   */
  outage(methods: MethodMatcher, options: OutageOptions = {}): () => void {
    const outage: Outage = {
      matches: methodMatcher(methods),
      status: options.status ?? 500,
      untilMs: options.untilMs,
    };
    this.outages.add(outage);
    return () => {
      this.outages.delete(outage);
    };
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
    if (req.method === 'GET' && area === 'download' && name !== undefined) {
      return this.answerDownload(name, req, res);
    }
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
    const outage = this.outageOf(method);
    const fault = outage === undefined ? this.takeFault(method) : undefined;
    if (fault?.delayMs !== undefined) await sleep(fault.delayMs);
    const args = decodeArgs(req.headers['content-type'], raw);
    const answer: ApiAnswer =
      outage !== undefined
        ? { status: outage.status, reply: { ok: false, error: 'internal_error' } }
        : args === undefined
          ? { status: 200, reply: { ok: false, error: 'invalid_json' } }
          : this.apiAnswer(method, args, req.headers.authorization, fault);
    const call: ApiCall = {
      method,
      args: args ?? {},
      at: this.now(),
      status: answer.status,
      response: answer.reply,
      ...(fault?.drop ? { dropped: true } : {}),
    };
    observe('slack-calls', call);
    // Recorded before answering, so a bot that awaited the call always finds it recorded.
    this.record(this.recordedCalls, call);
    if (fault?.drop) {
      res.destroy();
      return;
    }
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
    const refused = this.authError(method, token);
    if (refused !== undefined) return { status: 200, reply: { ok: false, error: refused } };
    if (fault?.error === 'ratelimited') {
      return rateLimitedAnswer(fault.retryAfterSec ?? 1, fault.status);
    }
    if (fault?.error !== undefined) {
      return { status: fault.status ?? 200, reply: { ok: false, error: fault.error } };
    }
    const retryAfterSec = this.limiter?.take(method, args);
    if (retryAfterSec !== undefined) {
      this.refusals.set(method, (this.refusals.get(method) ?? 0) + 1);
      return rateLimitedAnswer(retryAfterSec);
    }
    if (method === 'apps.connections.open' && this.socketMode) {
      return { status: 200, reply: { ok: true, url: this.socketMode.url } };
    }
    return { status: 200, reply: this.workspace.call(method, args) };
  }

  /** Why Slack would refuse this token for this method, if it would. */
  private authError(method: string, token: unknown): string | undefined {
    if (method === 'apps.connections.open') {
      // The only call made with the app-level token rather than the bot token.
      if (!this.socketMode) return 'not_allowed_token_type';
      return token === this.socketMode.appToken ? undefined : 'invalid_auth';
    }
    if (!this.workspace.knowsMethod(method)) return 'unknown_method';
    if (token === undefined) return 'not_authed';
    return token === this.config.botToken ? undefined : 'invalid_auth';
  }

  private answerResponseUrl(id: string, raw: Buffer, res: ServerResponse): void {
    const text = raw.toString('utf8');
    const body = parseJson(text) ?? text;
    const answer = this.workspace.postToResponseUrl(id, body);
    const post: ResponseUrlPost = { id, body, at: this.now(), status: answer.status };
    observe('response-urls', post);
    this.record(this.responsePosts, post);
    res.writeHead(answer.status, { 'Content-Type': 'text/plain' }).end(answer.body);
  }

  private async answerUpload(
    fileId: string,
    req: IncomingMessage,
    raw: Buffer,
    res: ServerResponse,
  ): Promise<void> {
    const bytes = await uploadedBytes(req.headers['content-type'], raw);
    observe('files', bytes);
    if (!this.workspace.receiveUpload(fileId, bytes)) {
      res.writeHead(404, { 'Content-Type': 'text/plain' }).end('file_not_found');
      return;
    }
    this.changes.emit('change');
    res.writeHead(200, { 'Content-Type': 'text/plain' }).end(`OK - ${bytes.length}`);
  }

  /**
   * A file's bytes for the bot token in an Authorization header, as Slack serves
   * `url_private_download`; anything else is sent to sign in (Slack's redirect to its login
   * page), never the file.
   */
  private answerDownload(fileId: string, req: IncomingMessage, res: ServerResponse): void {
    const authorized = req.headers.authorization === `Bearer ${this.config.botToken}`;
    this.record(this.fileDownloads, { fileId, authorized, at: this.now() });
    const bytes = authorized ? this.workspace.fileBytes(fileId) : undefined;
    if (!authorized) {
      res.writeHead(302, { Location: `${this.url}/signin` }).end();
      return;
    }
    if (bytes === undefined) {
      res.writeHead(404, { 'Content-Type': 'text/plain' }).end('file_not_found');
      return;
    }
    res
      .writeHead(200, {
        'Content-Type': 'application/octet-stream',
        'Content-Length': String(bytes.length),
      })
      .end(bytes);
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

  /** The outage covering `method` now, dropping those past their `untilMs`. */
  private outageOf(method: string): Outage | undefined {
    const now = this.now();
    for (const outage of this.outages) {
      if (outage.untilMs !== undefined && now >= outage.untilMs) this.outages.delete(outage);
      else if (outage.matches(method)) return outage;
    }
    return undefined;
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

function rateLimitedAnswer(retryAfterSec: number, status = 429): ApiAnswer {
  return {
    status,
    reply: { ok: false, error: 'ratelimited' },
    headers: { 'Retry-After': String(retryAfterSec) },
  };
}

function methodMatcher(methods: MethodMatcher): (method: string) => boolean {
  if (typeof methods === 'function') return methods;
  // search() ignores a /g pattern's lastIndex, which test() would carry between calls.
  if (methods instanceof RegExp) return (method) => method.search(methods) !== -1;
  return (method) => method === methods;
}

/** chat.postMessage's per-channel bucket: a user id posts to that user's app DM. */
function channelKey(channel: unknown): string {
  const id = typeof channel === 'string' ? channel : '';
  return /^U[A-Z0-9]+$/.test(id) ? dmChannelFor(id) : id;
}

function copyFile(file: UploadedFile): UploadedFile {
  return { ...file, ...(file.bytes === undefined ? {} : { bytes: Buffer.from(file.bytes) }) };
}

async function readBody(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/** The value `text` spells in JSON, or undefined when it is not JSON. */
export function parseJson(text: string): unknown {
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
