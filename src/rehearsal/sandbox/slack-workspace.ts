import { randomHex } from './random-hex.ts';

/**
 * The state behind the Slack emulation: one workspace with its users, groups, channel
 * messages, views, trigger ids, response URLs and uploaded files, plus the Web API methods
 * payops calls. It speaks in plain objects; the HTTP side lives in slack.ts.
 *
 * Error codes and limits follow Slack's documentation (shared/slack-platform-notes.md §3, §5, §7);
 * where Slack is silent the emulation is lenient rather than inventing a rule.
 */

export type JsonObject = Record<string, unknown>;
/** Web API arguments as the emulation received them, with `blocks`/`view`/`files` decoded. */
export type ApiArgs = Record<string, unknown>;
export type ApiReply = JsonObject & { ok: boolean; error?: string };

export interface SlackIdentity {
  readonly signingSecret: string;
  readonly botToken: string;
  readonly botUserId: string;
  readonly botId: string;
  readonly teamId: string;
  readonly teamDomain: string;
  readonly apiAppId: string;
}

export interface SlackUser {
  readonly id: string;
  readonly name: string;
  readonly real_name: string;
  readonly tz: string;
  readonly is_bot?: boolean;
  readonly deleted?: boolean;
  readonly email?: string;
}

export interface UserGroup {
  readonly handle: string;
  readonly name: string;
  readonly users: readonly string[];
}

/** A group is either its member list (the handle is then derived from the id) or in full. */
export type UserGroupConfig = readonly string[] | UserGroup;

export interface SlackChannel {
  readonly name: string;
  readonly is_private?: boolean;
}

export interface WorkspaceOptions extends SlackIdentity {
  readonly users: readonly SlackUser[];
  readonly userGroups: Readonly<Record<string, UserGroupConfig>>;
  readonly channels: Readonly<Record<string, SlackChannel>>;
  /** User groups need a paid plan: on 'free', usergroups.* answer plan_upgrade_required. */
  readonly plan: 'paid' | 'free';
  /** views.publish answers not_enabled unless the app's Home tab is on. */
  readonly homeTabEnabled: boolean;
  readonly triggerTtlMs: number;
  readonly responseUrlTtlMs: number;
  /** Where the emulation listens; upload URLs and permalinks point back to it. */
  readonly baseUrl: string;
  readonly now: () => number;
}

export const DEFAULT_SLACK: SlackIdentity = {
  signingSecret: 'emulation-signing-secret',
  botToken: 'xoxb-emulation',
  botUserId: 'UPAYOPSBOT',
  botId: 'BPAYOPS',
  teamId: 'T0PAYOPS',
  teamDomain: 'payops-emulation',
  apiAppId: 'A0PAYOPS',
};

export const DEFAULT_USERS: readonly SlackUser[] = [
  { id: 'U0ALICE', name: 'alice', real_name: 'Alice Archer', tz: 'Europe/London' },
  { id: 'U0BOB', name: 'bob', real_name: 'Bob Baker', tz: 'Europe/Berlin' },
  { id: 'U0CAROL', name: 'carol', real_name: 'Carol Chen', tz: 'America/New_York' },
  { id: 'U0DAVE', name: 'dave', real_name: 'Dave Diaz', tz: 'America/Los_Angeles' },
  { id: 'U0ERIN', name: 'erin', real_name: 'Erin Evans', tz: 'Asia/Tokyo' },
  // A deactivated account, for the "former employee still in a group" cases.
  { id: 'U0FRANK', name: 'frank', real_name: 'Frank Fischer', tz: 'Europe/Paris', deleted: true },
];

export const DEFAULT_USER_GROUPS: Readonly<Record<string, UserGroupConfig>> = {
  S0APPROVERS: {
    handle: 'payops-approvers',
    name: 'PayOps approvers',
    users: ['U0ALICE', 'U0BOB', 'U0CAROL'],
  },
};

export const DEFAULT_CHANNELS: Readonly<Record<string, SlackChannel>> = {
  C0PAYOPS: { name: 'payops' },
  /** Where the rehearsal's approval cards go (REHEARSAL_APPROVALS_CHANNEL). */
  C0APPROVALS: { name: 'approvals' },
  C0GENERAL: { name: 'general' },
};

/** Data an app attaches to its message (chat.postMessage/update `metadata`). */
export interface MessageMetadata {
  readonly event_type: string;
  readonly event_payload: JsonObject;
}

/** Who posted a message other than payops: a member, or another app's bot (its `bot_id`). */
export interface MessageAuthor {
  readonly user: string;
  readonly bot_id?: string;
  readonly app_id?: string;
}

/** A message as the channel shows it. */
export interface SlackMessage {
  readonly channel: string;
  readonly ts: string;
  /** Set on a message someone else posted (`postAs`); payops's own otherwise. */
  readonly author?: MessageAuthor;
  text: string;
  blocks: JsonObject[] | undefined;
  metadata?: MessageMetadata;
  /** Set on an ephemeral message: the one user who sees it. */
  readonly ephemeralTo?: string;
  readonly thread_ts?: string;
  edited?: { readonly ts: string };
  readonly files?: readonly string[];
  /** What produced it: a Web API method or 'response_url'. */
  readonly via: string;
}

export interface UploadedFile {
  readonly id: string;
  readonly filename: string;
  readonly declaredLength: number;
  title?: string;
  bytes?: Buffer;
  completed: boolean;
  channelId?: string;
  /** Who uploaded it: a member (`shareFile`, `uploadFile`); the bot's own otherwise. */
  user?: string;
}

export interface ResponseUrlContext {
  readonly channelId: string;
  readonly userId: string;
  /** The message the interaction came from; `replace_original`/`delete_original` act on it. */
  readonly messageTs?: string;
}

export interface ResponseUrlAnswer {
  readonly status: number;
  readonly body: string;
}

interface ResponseUrlState extends ResponseUrlContext {
  readonly issuedAt: number;
  posts: number;
  expired: boolean;
}

interface TriggerState {
  readonly issuedAt: number;
  /** The modal the interaction happened in, so views.push knows which stack to grow. */
  readonly viewId?: string;
  used: boolean;
}

const MAX_MESSAGE_BLOCKS = 50;
const MAX_VIEW_BLOCKS = 100;
const MAX_VIEW_TEXT = 24;
const MAX_PRIVATE_METADATA = 3000;
const MAX_CALLBACK_ID = 255;
const MAX_VIEW_STACK = 3;
const MAX_RESPONSE_URL_POSTS = 5;
const DEFAULT_HISTORY_LIMIT = 100;
const MAX_HISTORY_LIMIT = 999;

/** A handler's way to answer `{ ok: false, error }`, optionally with Slack's `[ERROR] …` lines. */
class ApiFailure extends Error {
  constructor(
    readonly code: string,
    readonly messages?: readonly string[],
  ) {
    super(code);
  }
}

export function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function optionalText(args: ApiArgs, key: string): string | undefined {
  const value = args[key];
  return typeof value === 'string' && value !== '' ? value : undefined;
}

function requiredText(args: ApiArgs, key: string): string {
  const value = optionalText(args, key);
  if (value === undefined) {
    throw new ApiFailure('invalid_arguments', [`[ERROR] missing required field: ${key}`]);
  }
  return value;
}

/** Form bodies carry booleans as strings. */
function flag(args: ApiArgs, key: string): boolean {
  const value = args[key];
  return value === true || value === 'true' || value === '1';
}

function messageBlocks(value: unknown): JsonObject[] | undefined {
  if (value === undefined) return undefined;
  if (!Array.isArray(value) || !value.every(isObject))
    throw new ApiFailure('invalid_blocks_format');
  if (value.length > MAX_MESSAGE_BLOCKS) {
    throw new ApiFailure('invalid_blocks', [
      `[ERROR] no more than ${MAX_MESSAGE_BLOCKS} items allowed [json-pointer:/blocks]`,
    ]);
  }
  return value;
}

/** chat.postMessage/update `metadata`: `{event_type, event_payload}`, sent JSON-encoded. */
function messageMetadata(value: unknown): MessageMetadata | undefined {
  if (value === undefined) return undefined;
  if (!isObject(value)) throw new ApiFailure('invalid_metadata_format');
  const { event_type: eventType, event_payload: eventPayload } = value;
  if (typeof eventType !== 'string' || eventType === '' || !isObject(eventPayload)) {
    throw new ApiFailure('invalid_metadata_schema');
  }
  return { event_type: eventType, event_payload: eventPayload };
}

/**
 * A ts (or a `oldest`/`latest` bound such as '0' or '1700000000') in microseconds, which stay
 * exact in a double where the decimal seconds would not; undefined if it is not a timestamp.
 */
function tsMicros(ts: string): number | undefined {
  const match = /^(\d+)(?:\.(\d{1,6}))?$/.exec(ts);
  if (match === null) return undefined;
  return Number(match[1]) * 1e6 + Number((match[2] ?? '').padEnd(6, '0'));
}

function historyBound(args: ApiArgs, key: 'oldest' | 'latest'): number | undefined {
  const value = optionalText(args, key);
  if (value === undefined) return undefined;
  const micros = tsMicros(value);
  if (micros === undefined) throw new ApiFailure(`invalid_ts_${key}`);
  return micros;
}

/** Slack's history cursor: base64 of `next_ts:` and the ts without its dot. */
function historyCursor(ts: string): string {
  return Buffer.from(`next_ts:${ts.replace('.', '')}`).toString('base64');
}

function cursorMicros(cursor: string): number {
  const match = /^next_ts:(\d{7,})$/.exec(Buffer.from(cursor, 'base64').toString('utf8'));
  if (match?.[1] === undefined) throw new ApiFailure('invalid_cursor');
  return Number(match[1]);
}

/** conversations.history/replies `limit`: at most 999, and 100 when missing. */
function pageLimit(args: ApiArgs): number {
  const requested = Number(args.limit);
  // Slack is silent on a missing or nonsensical limit; the emulation takes the default then.
  return Number.isInteger(requested) && requested > 0
    ? Math.min(requested, MAX_HISTORY_LIMIT)
    : DEFAULT_HISTORY_LIMIT;
}

/** conversations.history/replies `oldest`, `latest` and `inclusive`, as a test of a ts in µs. */
function timeRange(args: ApiArgs): (micros: number) => boolean {
  const oldest = historyBound(args, 'oldest') ?? 0;
  const latest = historyBound(args, 'latest') ?? Number.POSITIVE_INFINITY;
  const inclusive = flag(args, 'inclusive');
  return (micros) =>
    (inclusive ? micros >= oldest : micros > oldest) &&
    (inclusive ? micros <= latest : micros < latest);
}

/** Each thread's replies in ts order, by the ts of its parent. */
function threadsOf(messages: readonly SlackMessage[]): Map<string, SlackMessage[]> {
  const threads = new Map<string, SlackMessage[]>();
  for (const message of messages) {
    if (message.thread_ts === undefined || message.thread_ts === message.ts) continue;
    const replies = threads.get(message.thread_ts) ?? [];
    replies.push(message);
    threads.set(message.thread_ts, replies);
  }
  return threads;
}

/** chat.postMessage/postEphemeral/update need something to show. */
function messageContent(args: ApiArgs): {
  text: string | undefined;
  blocks: JsonObject[] | undefined;
} {
  const blocks = messageBlocks(args.blocks);
  const text = typeof args.text === 'string' ? args.text : undefined;
  if (!text && !blocks?.length && args.attachments === undefined) throw new ApiFailure('no_text');
  return { text, blocks };
}

function plainTextProblem(view: JsonObject, key: string, required: boolean): string | undefined {
  const value = view[key];
  if (value === undefined || value === null) {
    return required ? `missing required field: ${key} [json-pointer:/view/${key}]` : undefined;
  }
  const text = isObject(value) ? value.text : undefined;
  if (typeof text !== 'string') return `must be a plain_text object [json-pointer:/view/${key}]`;
  return text.length > MAX_VIEW_TEXT
    ? `must be less than ${MAX_VIEW_TEXT + 1} characters [json-pointer:/view/${key}/text]`
    : undefined;
}

function validateView(value: unknown, expectedType: string): JsonObject {
  if (!isObject(value)) {
    throw new ApiFailure('invalid_arguments', [
      '[ERROR] must be a JSON object [json-pointer:/view]',
    ]);
  }
  const problems: (string | undefined)[] = [];
  if (value.type !== expectedType)
    problems.push(`must be '${expectedType}' [json-pointer:/view/type]`);
  if (!Array.isArray(value.blocks)) problems.push('must be an array [json-pointer:/view/blocks]');
  else if (value.blocks.length > MAX_VIEW_BLOCKS) {
    problems.push(`no more than ${MAX_VIEW_BLOCKS} items allowed [json-pointer:/view/blocks]`);
  }
  if (expectedType === 'modal') {
    problems.push(
      plainTextProblem(value, 'title', true),
      plainTextProblem(value, 'submit', false),
      plainTextProblem(value, 'close', false),
    );
  }
  const { private_metadata: metadata, callback_id: callbackId } = value;
  if (typeof metadata === 'string' && metadata.length > MAX_PRIVATE_METADATA) {
    problems.push(
      `must be less than ${MAX_PRIVATE_METADATA + 1} characters ` +
        '[json-pointer:/view/private_metadata]',
    );
  }
  if (typeof callbackId === 'string' && callbackId.length > MAX_CALLBACK_ID) {
    problems.push(
      `must be less than ${MAX_CALLBACK_ID + 1} characters [json-pointer:/view/callback_id]`,
    );
  }
  const messages = problems.filter((problem) => problem !== undefined).map((p) => `[ERROR] ${p}`);
  if (messages.length > 0) throw new ApiFailure('invalid_arguments', messages);
  return value;
}

/** A message's key in the index: its channel and ts. */
function messageKey(channelId: string, ts: string): string {
  return `${channelId}/${ts}`;
}

function sequence(prefix: string): () => string {
  let next = 0;
  return () => {
    next += 1;
    return `${prefix}${String(next).padStart(9, '0')}`;
  };
}

const newHash = (): string => randomHex(8);

/** A user's app DM: D + the user id without its U, so it is stable and readable in tests. */
export function dmChannelFor(userId: string): string {
  return `D${userId.slice(1)}`;
}

export class SlackWorkspace {
  private readonly users: Map<string, SlackUser>;
  private readonly groups: Map<string, UserGroup>;
  /** When each group's members last changed (unix seconds), as its change event says. */
  private readonly groupUpdatedAt = new Map<string, number>();
  private readonly channelMessages = new Map<string, SlackMessage[]>();
  /** The same messages by channel and ts: chat.update finds one without scanning a channel. */
  private readonly messageIndex = new Map<string, SlackMessage>();
  /** Each view as Slack returns it. */
  private readonly views = new Map<string, JsonObject>();
  private readonly homeViews = new Map<string, string>();
  private readonly triggers = new Map<string, TriggerState>();
  private readonly responseUrls = new Map<string, ResponseUrlState>();
  readonly files = new Map<string, UploadedFile>();
  private readonly nextViewId = sequence('V');
  private readonly nextFileId = sequence('F');
  private lastTsMicros = 0;

  private readonly methods: Readonly<Record<string, (args: ApiArgs) => JsonObject>> = {
    'auth.test': () => this.authTest(),
    'chat.postMessage': (args) => this.postMessage(args),
    'chat.update': (args) => this.updateMessage(args),
    'chat.postEphemeral': (args) => this.postEphemeral(args),
    'chat.delete': (args) => this.deleteMessage(args),
    'chat.getPermalink': (args) => this.permalink(args),
    'views.open': (args) => this.openView(args, 'open'),
    'views.push': (args) => this.openView(args, 'push'),
    'views.update': (args) => this.updateView(args),
    'views.publish': (args) => this.publishHomeView(args),
    'users.info': (args) => ({ user: this.userRecord(this.knownUser(requiredText(args, 'user'))) }),
    'usergroups.list': (args) => this.listUserGroups(args),
    'usergroups.users.list': (args) => this.userGroupMembers(args),
    'conversations.open': (args) => this.openConversation(args),
    'conversations.info': (args) => ({ channel: this.channelInfo(requiredText(args, 'channel')) }),
    'conversations.history': (args) => this.history(args),
    'conversations.replies': (args) => this.replies(args),
    'files.getUploadURLExternal': (args) => this.uploadUrl(args),
    'files.completeUploadExternal': (args) => this.completeUploads(args),
    'files.info': (args) => ({ file: this.fileObject(requiredText(args, 'file')) }),
  };

  constructor(private readonly options: WorkspaceOptions) {
    this.users = new Map(options.users.map((user) => [user.id, user]));
    if (!this.users.has(options.botUserId)) {
      this.users.set(options.botUserId, {
        id: options.botUserId,
        name: 'payops',
        real_name: 'PayOps',
        tz: 'UTC',
        is_bot: true,
      });
    }
    this.groups = new Map(
      Object.entries(options.userGroups).map(([id, group]): [string, UserGroup] => [
        id,
        'users' in group ? group : { handle: id.toLowerCase(), name: id, users: group },
      ]),
    );
  }

  knowsMethod(method: string): boolean {
    return Object.hasOwn(this.methods, method);
  }

  call(method: string, args: ApiArgs): ApiReply {
    const handler = this.methods[method];
    if (handler === undefined) return { ok: false, error: 'unknown_method' };
    try {
      return { ok: true, ...handler(args) };
    } catch (error) {
      if (!(error instanceof ApiFailure)) throw error;
      return error.messages === undefined
        ? { ok: false, error: error.code }
        : { ok: false, error: error.code, response_metadata: { messages: error.messages } };
    }
  }

  /** A top-level message `author` posts in a channel, with whatever metadata they attach. */
  postAs(
    author: MessageAuthor,
    channelId: string,
    fields: { text: string; metadata?: MessageMetadata },
  ): SlackMessage {
    const message = this.addMessage({
      channel: this.resolveChannel(channelId),
      author,
      text: fields.text,
      blocks: undefined,
      ...(fields.metadata === undefined ? {} : { metadata: fields.metadata }),
      via: 'another author',
    });
    return structuredClone(message);
  }

  /**
   * Someone changes a user group's members in Slack: the group then lists `users`, and the
   * `subteam_members_changed` event Slack sends about it is returned, for the driver to deliver
   * (once, twice, or not at all: Slack may lose or repeat it).
   */
  changeGroupMembers(
    groupId: string,
    users: readonly string[],
  ): JsonObject & { readonly type: string } {
    const group = this.groups.get(groupId);
    if (group === undefined) throw new Error(`Slack emulation: no user group ${groupId}`);
    const before = new Set(group.users);
    const after = new Set(users);
    const added = [...after].filter((user) => !before.has(user));
    const removed = [...before].filter((user) => !after.has(user));
    const previous = this.groupUpdatedAt.get(groupId) ?? 0;
    const updated = Math.floor(this.options.now() / 1000);
    this.groups.set(groupId, { ...group, users: [...after] });
    this.groupUpdatedAt.set(groupId, updated);
    return {
      type: 'subteam_members_changed',
      subteam_id: groupId,
      team_id: this.options.teamId,
      date_previous_update: previous,
      date_update: updated,
      added_users: added,
      added_users_count: String(added.length),
      removed_users: removed,
      removed_users_count: String(removed.length),
    };
  }

  // ---- what tests and the demo read ----

  /** Messages in posting order; ephemeral ones are kept apart, each tagged with its viewer. */
  channel(channelId: string): { messages: SlackMessage[]; ephemeral: SlackMessage[] } {
    const all = structuredClone(this.channelMessages.get(channelId) ?? []);
    return {
      messages: all.filter((message) => message.ephemeralTo === undefined),
      ephemeral: all.filter((message) => message.ephemeralTo !== undefined),
    };
  }

  user(userId: string): SlackUser | undefined {
    return this.users.get(userId);
  }

  /** The name Slack puts in `channel_name`: 'directmessage' for a DM. */
  channelName(channelId: string): string {
    if (channelId.startsWith('D')) return 'directmessage';
    return this.options.channels[channelId]?.name ?? channelId.toLowerCase();
  }

  message(channelId: string, ts: string): SlackMessage | undefined {
    const found = this.findMessage(channelId, ts);
    return found && structuredClone(found);
  }

  /** The Home tab last published for `userId`, as Slack shows it. */
  homeView(userId: string): JsonObject | undefined {
    const viewId = this.homeViews.get(userId);
    return viewId === undefined ? undefined : this.view(viewId);
  }

  view(viewId: string): JsonObject | undefined {
    const view = this.views.get(viewId);
    return view && structuredClone(view);
  }

  /**
   * Drops what a long run has used up: ephemeral messages, response_urls already posted to (a
   * later post to one is refused as unknown) and trigger_ids used or past their life.
   */
  forgetUsedUp(): void {
    for (const [channelId, messages] of this.channelMessages) {
      const kept: SlackMessage[] = [];
      for (const message of messages) {
        if (message.ephemeralTo === undefined) kept.push(message);
        else this.messageIndex.delete(messageKey(channelId, message.ts));
      }
      this.channelMessages.set(channelId, kept);
    }
    for (const [id, state] of this.responseUrls) {
      if (state.posts > 0) this.responseUrls.delete(id);
    }
    const now = this.options.now();
    for (const [id, trigger] of this.triggers) {
      if (trigger.used || now - trigger.issuedAt > this.options.triggerTtlMs)
        this.triggers.delete(id);
    }
  }

  // ---- what the signed-request driver hands out ----

  /** `viewId`: the modal the interaction happened in, for views.push. */
  issueTriggerId(viewId?: string): string {
    const now = this.options.now();
    const secret = randomHex(16);
    const id = `${Math.floor(now / 1000)}.${this.options.teamId}.${secret}`;
    this.triggers.set(id, { issuedAt: now, viewId, used: false });
    return id;
  }

  issueResponseUrl(context: ResponseUrlContext): { id: string; url: string } {
    const id = randomHex(12);
    this.responseUrls.set(id, {
      ...context,
      issuedAt: this.options.now(),
      posts: 0,
      expired: false,
    });
    return { id, url: `${this.options.baseUrl}/respond/${id}` };
  }

  /** Drops these response_urls: from now on they answer no_service, as unknown ones do. */
  forgetResponseUrls(ids: Iterable<string>): void {
    for (const id of ids) this.responseUrls.delete(id);
  }

  /** Makes a response_url answer expired_url from now on, as after Slack's 30 minutes. */
  expireResponseUrl(id: string): void {
    const state = this.responseUrls.get(id);
    if (state !== undefined) state.expired = true;
  }

  // ---- response_url ----

  postToResponseUrl(id: string, payload: unknown): ResponseUrlAnswer {
    const state = this.responseUrls.get(id);
    if (state === undefined) return { status: 404, body: 'no_service' };
    if (state.expired || this.options.now() - state.issuedAt > this.options.responseUrlTtlMs) {
      return { status: 404, body: 'expired_url' };
    }
    if (state.posts >= MAX_RESPONSE_URL_POSTS) return { status: 404, body: 'used_url' };
    if (!isObject(payload)) return { status: 400, body: 'invalid_payload' };
    const original =
      state.messageTs === undefined
        ? undefined
        : this.findMessage(state.channelId, state.messageTs);
    if (flag(payload, 'delete_original')) {
      state.posts += 1;
      if (original !== undefined) this.removeMessage(original);
      return { status: 200, body: 'ok' };
    }
    let content: ReturnType<typeof messageContent>;
    try {
      content = messageContent(payload);
    } catch (error) {
      if (error instanceof ApiFailure) return { status: 400, body: error.code };
      throw error;
    }
    state.posts += 1;
    if (flag(payload, 'replace_original') && original !== undefined) {
      original.text = content.text ?? '';
      original.blocks = content.blocks;
      original.edited = { ts: this.nextTs() };
    } else {
      const inChannel = payload.response_type === 'in_channel';
      this.addMessage({
        channel: state.channelId,
        ...content,
        ...(inChannel ? {} : { ephemeralTo: state.userId }),
        via: 'response_url',
      });
    }
    return { status: 200, body: 'ok' };
  }

  // ---- members' files, and files.info ----

  /**
   * A file `userId` uploads: shared in `channelId` with a message, as a member drops a file in
   * a channel, or shared nowhere, as a modal's file input uploads one for the app.
   */
  uploadFileAs(
    userId: string,
    file: { name: string; bytes: Buffer; channelId?: string | undefined },
  ): UploadedFile {
    const user = this.knownUser(userId).id;
    const id = this.nextFileId();
    const channel = file.channelId === undefined ? undefined : this.resolveChannel(file.channelId);
    const uploaded: UploadedFile = {
      id,
      filename: file.name,
      declaredLength: file.bytes.length,
      title: file.name,
      bytes: Buffer.from(file.bytes),
      completed: true,
      user,
      ...(channel === undefined ? {} : { channelId: channel }),
    };
    this.files.set(id, uploaded);
    if (channel !== undefined) {
      this.addMessage({
        channel,
        author: { user },
        text: '',
        blocks: undefined,
        files: [id],
        via: 'upload',
      });
    }
    return uploaded;
  }

  /**
   * A file as files.info (and a file input's state) shows it. `url_private_download` serves its
   * bytes to the bot token only (slack.ts); where it is shared is listed by kind of channel.
   */
  fileObject(fileId: string): JsonObject {
    const file = this.files.get(fileId);
    if (file === undefined || !file.completed) throw new ApiFailure('file_not_found');
    const shared = file.channelId;
    const name = encodeURIComponent(file.filename);
    return {
      id: file.id,
      name: file.filename,
      title: file.title ?? file.filename,
      mimetype: 'application/octet-stream',
      size: file.bytes?.length ?? 0,
      user: file.user ?? this.options.botUserId,
      url_private: `${this.options.baseUrl}/download/${file.id}/${name}`,
      url_private_download: `${this.options.baseUrl}/download/${file.id}/${name}`,
      permalink: `${this.options.baseUrl}/files/${file.user ?? this.options.botUserId}/${file.id}/${name}`,
      channels: shared?.startsWith('C') ? [shared] : [],
      groups: shared?.startsWith('G') ? [shared] : [],
      ims: shared?.startsWith('D') ? [shared] : [],
    };
  }

  /** A completed file's bytes, for its download URL. */
  fileBytes(fileId: string): Buffer | undefined {
    const file = this.files.get(fileId);
    return file?.completed ? file.bytes : undefined;
  }

  // ---- file uploads (files.uploadV2 = get URL, POST bytes, complete) ----

  receiveUpload(fileId: string, bytes: Buffer): boolean {
    const file = this.files.get(fileId);
    if (file === undefined || file.completed) return false;
    file.bytes = bytes;
    return true;
  }

  private uploadUrl(args: ApiArgs): JsonObject {
    const filename = requiredText(args, 'filename');
    const declaredLength = Number(requiredText(args, 'length'));
    if (!Number.isInteger(declaredLength) || declaredLength < 0) {
      throw new ApiFailure('invalid_arguments', ['[ERROR] length must be a whole number']);
    }
    const id = this.nextFileId();
    this.files.set(id, { id, filename, declaredLength, completed: false });
    return { upload_url: `${this.options.baseUrl}/upload/${id}`, file_id: id };
  }

  private completeUploads(args: ApiArgs): JsonObject {
    const requested = args.files;
    if (!Array.isArray(requested) || !requested.every(isObject) || requested.length === 0) {
      throw new ApiFailure('invalid_arguments', ['[ERROR] files must be a non-empty JSON array']);
    }
    const files = requested.map((entry) => {
      const file = typeof entry.id === 'string' ? this.files.get(entry.id) : undefined;
      if (file?.bytes === undefined || file.completed) throw new ApiFailure('file_not_found');
      return { file, title: typeof entry.title === 'string' ? entry.title : file.filename };
    });
    const channelId = optionalText(args, 'channel_id');
    const channel = channelId === undefined ? undefined : this.resolveChannel(channelId);
    for (const { file, title } of files) {
      file.completed = true;
      file.title = title;
      file.channelId = channel;
    }
    if (channel !== undefined) {
      this.addMessage({
        channel,
        text: optionalText(args, 'initial_comment'),
        blocks: undefined,
        thread_ts: this.threadRoot(channel, optionalText(args, 'thread_ts')),
        files: files.map(({ file }) => file.id),
        via: 'files.completeUploadExternal',
      });
    }
    return {
      files: files.map(({ file }) => ({
        id: file.id,
        name: file.filename,
        title: file.title,
        size: file.bytes?.length,
      })),
    };
  }

  // ---- chat.* ----

  private authTest(): JsonObject {
    const { botUserId, botId, teamId, teamDomain, baseUrl } = this.options;
    return {
      url: `${baseUrl}/`,
      team: teamDomain,
      user: this.users.get(botUserId)?.name,
      team_id: teamId,
      user_id: botUserId,
      bot_id: botId,
      is_enterprise_install: false,
    };
  }

  private postMessage(args: ApiArgs): JsonObject {
    const channel = this.resolveChannel(requiredText(args, 'channel'));
    const content = messageContent(args);
    const metadata = messageMetadata(args.metadata);
    const message = this.addMessage({
      channel,
      ...content,
      ...(metadata === undefined ? {} : { metadata }),
      thread_ts: this.threadRoot(channel, optionalText(args, 'thread_ts')),
      via: 'chat.postMessage',
    });
    return { channel: message.channel, ts: message.ts, message: this.render(message) };
  }

  private updateMessage(args: ApiArgs): JsonObject {
    const message = this.botMessage(args);
    const { text, blocks } = messageContent(args);
    const metadata = messageMetadata(args.metadata);
    if (text !== undefined) message.text = text;
    if (blocks !== undefined) message.blocks = blocks;
    if (metadata !== undefined) message.metadata = metadata;
    message.edited = { ts: this.nextTs() };
    const { channel, ts } = message;
    return { channel, ts, text: message.text, message: this.render(message) };
  }

  private postEphemeral(args: ApiArgs): JsonObject {
    const channel = this.resolveChannel(requiredText(args, 'channel'));
    const user = this.users.get(requiredText(args, 'user'));
    if (user === undefined || user.deleted) throw new ApiFailure('user_not_in_channel');
    const message = this.addMessage({
      channel,
      ...messageContent(args),
      ephemeralTo: user.id,
      via: 'chat.postEphemeral',
    });
    return { message_ts: message.ts };
  }

  private deleteMessage(args: ApiArgs): JsonObject {
    const message = this.botMessage(args);
    this.removeMessage(message);
    return { channel: message.channel, ts: message.ts };
  }

  /** The message chat.update/delete name; an ephemeral one changes only via its response_url. */
  private botMessage(args: ApiArgs): SlackMessage {
    const channel = this.resolveChannel(requiredText(args, 'channel'));
    const message = this.findMessage(channel, requiredText(args, 'ts'));
    if (message === undefined || message.ephemeralTo !== undefined) {
      throw new ApiFailure('message_not_found');
    }
    return message;
  }

  private permalink(args: ApiArgs): JsonObject {
    const channel = this.resolveChannel(requiredText(args, 'channel'));
    const message = this.findMessage(channel, requiredText(args, 'message_ts'));
    if (message === undefined) throw new ApiFailure('message_not_found');
    const path = `/archives/${channel}/p${message.ts.replace('.', '')}`;
    return { channel, permalink: `${this.options.baseUrl}${path}` };
  }

  // ---- views.* ----

  private openView(args: ApiArgs, mode: 'open' | 'push'): JsonObject {
    const view = validateView(args.view, 'modal');
    const triggerId =
      optionalText(args, 'trigger_id') ?? optionalText(args, 'interactivity_pointer');
    if (triggerId === undefined) {
      throw new ApiFailure('invalid_arguments', ['[ERROR] missing required field: trigger_id']);
    }
    const trigger = this.triggers.get(triggerId);
    if (trigger === undefined) throw new ApiFailure('invalid_trigger_id');
    if (trigger.used) throw new ApiFailure('exchanged_trigger_id');
    if (this.options.now() - trigger.issuedAt > this.options.triggerTtlMs) {
      throw new ApiFailure('expired_trigger_id');
    }
    const parent = mode === 'push' && trigger.viewId ? this.views.get(trigger.viewId) : undefined;
    const rootViewId = parent === undefined ? undefined : String(parent.root_view_id);
    if (rootViewId !== undefined && this.stackSize(rootViewId) >= MAX_VIEW_STACK) {
      throw new ApiFailure('push_limit_reached');
    }
    trigger.used = true;
    const id = this.nextViewId();
    const stored = this.storeView(id, view, {
      rootViewId: rootViewId ?? id,
      previousViewId: parent === undefined ? null : String(parent.id),
    });
    return { view: stored };
  }

  private updateView(args: ApiArgs): JsonObject {
    const viewId = optionalText(args, 'view_id');
    const externalId = optionalText(args, 'external_id');
    const stored = [...this.views.values()].find((view) =>
      viewId !== undefined
        ? view.id === viewId
        : externalId !== undefined && view.external_id === externalId,
    );
    if (stored === undefined) throw new ApiFailure('not_found');
    const hash = optionalText(args, 'hash');
    if (hash !== undefined && hash !== stored.hash) throw new ApiFailure('hash_conflict');
    const view = validateView(args.view, String(stored.type));
    const { id, root_view_id: rootViewId, previous_view_id: previousViewId } = stored;
    return {
      view: this.storeView(String(id), view, {
        rootViewId: String(rootViewId),
        previousViewId: typeof previousViewId === 'string' ? previousViewId : null,
      }),
    };
  }

  private publishHomeView(args: ApiArgs): JsonObject {
    const user = this.knownUser(requiredText(args, 'user_id'));
    if (!this.options.homeTabEnabled) throw new ApiFailure('not_enabled');
    const view = validateView(args.view, 'home');
    const existingId = this.homeViews.get(user.id);
    const hash = optionalText(args, 'hash');
    if (
      existingId !== undefined &&
      hash !== undefined &&
      hash !== this.views.get(existingId)?.hash
    ) {
      throw new ApiFailure('hash_conflict');
    }
    const id = existingId ?? this.nextViewId();
    this.homeViews.set(user.id, id);
    return {
      view: this.storeView(id, view, { rootViewId: id, previousViewId: null }),
    };
  }

  private stackSize(rootViewId: string): number {
    return [...this.views.values()].filter((view) => view.root_view_id === rootViewId).length;
  }

  private storeView(
    id: string,
    input: JsonObject,
    placement: { rootViewId: string; previousViewId: string | null },
  ): JsonObject {
    const { teamId, apiAppId, botId } = this.options;
    const view: JsonObject = {
      id,
      team_id: teamId,
      type: input.type,
      blocks: input.blocks,
      private_metadata: input.private_metadata ?? '',
      callback_id: input.callback_id ?? '',
      state: { values: {} },
      hash: newHash(),
      title: input.title ?? null,
      close: input.close ?? null,
      submit: input.submit ?? null,
      clear_on_close: input.clear_on_close ?? false,
      notify_on_close: input.notify_on_close ?? false,
      previous_view_id: placement.previousViewId,
      root_view_id: placement.rootViewId,
      app_id: apiAppId,
      external_id: input.external_id ?? '',
      app_installed_team_id: teamId,
      bot_id: botId,
    };
    this.views.set(id, view);
    return structuredClone(view);
  }

  // ---- users, groups, conversations ----

  private knownUser(userId: string): SlackUser {
    const user = this.users.get(userId);
    if (user === undefined) throw new ApiFailure('user_not_found');
    return user;
  }

  private userRecord(user: SlackUser): JsonObject {
    return {
      id: user.id,
      team_id: this.options.teamId,
      name: user.name,
      real_name: user.real_name,
      tz: user.tz,
      is_bot: user.is_bot ?? false,
      deleted: user.deleted ?? false,
      is_admin: false,
      profile: {
        real_name: user.real_name,
        display_name: user.name,
        ...(user.email === undefined ? {} : { email: user.email }),
      },
    };
  }

  private requirePaidPlan(): void {
    if (this.options.plan === 'free') throw new ApiFailure('plan_upgrade_required');
  }

  private listUserGroups(args: ApiArgs): JsonObject {
    this.requirePaidPlan();
    const includeUsers = flag(args, 'include_users');
    return {
      usergroups: [...this.groups.entries()].map(([id, group]) => ({
        id,
        team_id: this.options.teamId,
        is_usergroup: true,
        name: group.name,
        handle: group.handle,
        user_count: group.users.length,
        ...(includeUsers ? { users: [...group.users] } : {}),
      })),
    };
  }

  private userGroupMembers(args: ApiArgs): JsonObject {
    this.requirePaidPlan();
    const group = this.groups.get(requiredText(args, 'usergroup'));
    if (group === undefined) throw new ApiFailure('no_such_subteam');
    return { users: [...group.users] };
  }

  private openConversation(args: ApiArgs): JsonObject {
    const userIds = (optionalText(args, 'users') ?? '').split(',').filter(Boolean);
    if (userIds.length !== 1) {
      throw new ApiFailure('invalid_arguments', [
        '[ERROR] the emulation opens one-to-one DMs only',
      ]);
    }
    const user = this.knownUser(userIds[0] ?? '');
    return { channel: { id: dmChannelFor(user.id) } };
  }

  private channelInfo(channelId: string): JsonObject {
    if (channelId.startsWith('D')) {
      const user = [...this.users.values()].find(({ id }) => dmChannelFor(id) === channelId);
      if (user === undefined) throw new ApiFailure('channel_not_found');
      return { id: channelId, is_im: true, user: user.id };
    }
    const id = this.resolveChannel(channelId);
    return {
      id,
      name: this.channelName(id),
      is_channel: true,
      is_private: this.options.channels[id]?.is_private ?? false,
      is_im: false,
      is_member: true,
    };
  }

  /**
   * The channel's top-level messages, newest first (thread replies and ephemeral ones are not
   * in it). The emulation does not model scopes, so channels:history/groups:history go unchecked.
   */
  private history(args: ApiArgs): JsonObject {
    const channel = this.resolveChannel(requiredText(args, 'channel'));
    const inRange = timeRange(args);
    const cursor = optionalText(args, 'cursor');
    // The cursor names the newest message of the next page.
    const before = cursor === undefined ? Number.POSITIVE_INFINITY : cursorMicros(cursor);
    const limit = pageLimit(args);
    const shown = this.shownMessages(channel);
    const matching = shown
      .filter((message) => {
        if (message.thread_ts !== undefined) return false;
        const micros = tsMicros(message.ts) ?? 0;
        return inRange(micros) && micros <= before;
      })
      .reverse();
    const page = matching.slice(0, limit);
    const next = matching[limit];
    const withMetadata = flag(args, 'include_all_metadata');
    const threads = threadsOf(shown);
    return {
      messages: page.map((message) => this.listed(message, withMetadata, threads.get(message.ts))),
      has_more: next !== undefined,
      pin_count: 0,
      ...(next === undefined ? {} : { response_metadata: { next_cursor: historyCursor(next.ts) } }),
    };
  }

  /**
   * A thread: its parent, then its replies oldest first. `ts` may name the parent or any message
   * of the channel; one that is not a thread's parent (a reply, or a message nobody answered)
   * comes back alone, as in Slack. `oldest`/`latest`/`cursor`/`limit` page through the replies;
   * the parent heads every page and is not counted in `limit`.
   */
  private replies(args: ApiArgs): JsonObject {
    const channel = this.resolveChannel(requiredText(args, 'channel'));
    const found = this.findMessage(channel, requiredText(args, 'ts'));
    if (found === undefined || found.ephemeralTo !== undefined) {
      throw new ApiFailure('thread_not_found');
    }
    const inRange = timeRange(args);
    const cursor = optionalText(args, 'cursor');
    // The cursor names the oldest reply of the next page.
    const after = cursor === undefined ? 0 : cursorMicros(cursor);
    const limit = pageLimit(args);
    const withMetadata = flag(args, 'include_all_metadata');
    const thread =
      found.thread_ts === undefined
        ? threadsOf(this.shownMessages(channel)).get(found.ts)
        : undefined;
    if (thread === undefined) {
      return { messages: [this.listed(found, withMetadata, undefined)], has_more: false };
    }
    const matching = thread.filter((reply) => {
      const micros = tsMicros(reply.ts) ?? 0;
      return inRange(micros) && micros >= after;
    });
    const page = matching.slice(0, limit);
    const next = matching[limit];
    return {
      messages: [
        this.listed(found, withMetadata, thread),
        ...page.map((reply) => this.listed(reply, withMetadata, undefined)),
      ],
      has_more: next !== undefined,
      ...(next === undefined ? {} : { response_metadata: { next_cursor: historyCursor(next.ts) } }),
    };
  }

  /** The channel's messages everyone sees, in posting order (ts order). */
  private shownMessages(channelId: string): SlackMessage[] {
    return (this.channelMessages.get(channelId) ?? []).filter(
      (message) => message.ephemeralTo === undefined,
    );
  }

  /**
   * A message as conversations.history/replies list it: a thread's parent carries Slack's thread
   * summary, a reply its parent's author, and the metadata only when asked for.
   */
  private listed(
    message: SlackMessage,
    withMetadata: boolean,
    replies: readonly SlackMessage[] | undefined,
  ): JsonObject {
    const { botUserId } = this.options;
    const latestReply = replies?.at(-1);
    return {
      ...this.render(message),
      ...(replies === undefined || latestReply === undefined
        ? {}
        : {
            thread_ts: message.ts,
            reply_count: replies.length,
            reply_users_count: 1,
            reply_users: [botUserId],
            latest_reply: latestReply.ts,
          }),
      ...(message.thread_ts === undefined ? {} : { parent_user_id: botUserId }),
      ...(withMetadata && message.metadata !== undefined
        ? { metadata: structuredClone(message.metadata) }
        : {}),
    };
  }

  /**
   * Any well-formed C/G/D id counts as a channel the bot is in, so tests can use their own ids;
   * a user id stands for that user's app DM, as in chat.postMessage.
   */
  private resolveChannel(channelId: string): string {
    if (/^U[A-Z0-9]+$/.test(channelId)) return dmChannelFor(this.knownUser(channelId).id);
    if (!/^[CGD][A-Z0-9]{2,}$/.test(channelId)) throw new ApiFailure('channel_not_found');
    return channelId;
  }

  // ---- the message model ----

  /** Stores a new message under a fresh ts; a message without text shows ''. */
  private addMessage(
    fields: Omit<SlackMessage, 'ts' | 'text'> & { readonly text: string | undefined },
  ): SlackMessage {
    const message: SlackMessage = { ...fields, ts: this.nextTs(), text: fields.text ?? '' };
    const list = this.channelMessages.get(message.channel) ?? [];
    list.push(message);
    this.channelMessages.set(message.channel, list);
    this.messageIndex.set(messageKey(message.channel, message.ts), message);
    return message;
  }

  /**
   * The thread a reply to `threadTs` joins: a reply to a reply goes to the parent's thread, as in
   * Slack. A `threadTs` that names no message is kept as given.
   */
  private threadRoot(channelId: string, threadTs: string | undefined): string | undefined {
    if (threadTs === undefined) return undefined;
    return this.findMessage(channelId, threadTs)?.thread_ts ?? threadTs;
  }

  private findMessage(channelId: string, ts: string): SlackMessage | undefined {
    return this.messageIndex.get(messageKey(channelId, ts));
  }

  private removeMessage(message: SlackMessage): void {
    this.messageIndex.delete(messageKey(message.channel, message.ts));
    const list = this.channelMessages.get(message.channel) ?? [];
    this.channelMessages.set(
      message.channel,
      list.filter((kept) => kept !== message),
    );
  }

  private render(message: SlackMessage): JsonObject {
    const { botUserId, botId, apiAppId, teamId } = this.options;
    return {
      type: 'message',
      ...(message.author ?? { user: botUserId, bot_id: botId, app_id: apiAppId }),
      team: teamId,
      text: message.text,
      ...(message.blocks === undefined ? {} : { blocks: structuredClone(message.blocks) }),
      ts: message.ts,
      ...(message.thread_ts === undefined ? {} : { thread_ts: message.thread_ts }),
      ...(message.edited === undefined
        ? {}
        : { edited: { user: botUserId, ts: message.edited.ts } }),
    };
  }

  /** Slack's ts: epoch seconds and six digits, unique and increasing within the workspace. */
  private nextTs(): string {
    const micros = Math.max(Math.floor(this.options.now() * 1000), this.lastTsMicros + 1);
    this.lastTsMicros = micros;
    return `${Math.floor(micros / 1e6)}.${String(micros % 1e6).padStart(6, '0')}`;
  }
}
