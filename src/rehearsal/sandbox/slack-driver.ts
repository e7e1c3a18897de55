import { createHmac } from 'node:crypto';
import type { Server } from 'node:net';
import { performance } from 'node:perf_hooks';
import { observe } from '../observer.ts';
import {
  isObject,
  type JsonObject,
  type SlackIdentity,
  type SlackWorkspace,
} from './slack-workspace.ts';

/** What the driver needs of the emulation it drives (`SlackEmulation`, which makes drivers). */
export type DrivenSlack = Pick<
  SlackWorkspace,
  'channelName' | 'issueResponseUrl' | 'issueTriggerId' | 'message' | 'user' | 'view'
> & { readonly config: SlackIdentity };

/**
 * Drives a bot's HTTP endpoint exactly as Slack does: the exact bytes are signed and sent with
 * the content type set by hand, because Bolt refuses `application/x-www-form-urlencoded;charset=…`
 * with 400 and fetch would add that suffix to a URLSearchParams body (slack-platform-notes §1).
 * Every request goes through `sendSlackRequest`, so tests, the demo and the benchmark sign alike.
 */

export type SlackContentType = 'application/x-www-form-urlencoded' | 'application/json';

/** How to make a request that the bot must refuse with 401. */
export type Forgery = 'bad-signature' | 'stale-timestamp' | 'future-timestamp' | 'missing-headers';

export interface SendOptions {
  readonly forge?: Forgery;
  /** Extra headers, e.g. X-Slack-Retry-Num on a redelivered event. */
  readonly headers?: Readonly<Record<string, string>>;
}

/** The exact bytes and headers of a request, so a test can send them again (a replay). */
export interface SignedRequest {
  readonly body: string;
  readonly headers: Readonly<Record<string, string>>;
}

export interface SignedResponse {
  readonly request: SignedRequest;
  readonly status: number;
  readonly body: string;
  /** From sending the request to having read the whole answer. */
  readonly ackMs: number;
}

/**
 * How far a forged timestamp is from now: past Slack's five minutes by a minute, or a week ahead
 * (a clock far off, or a request signed now to be replayed later).
 */
const FORGED_TIMESTAMP_SHIFT_SEC: Partial<Record<Forgery, number>> = {
  'stale-timestamp': -6 * 60,
  'future-timestamp': 7 * 24 * 60 * 60,
};

/** `v0=` + hex HMAC-SHA256 of `v0:{timestamp}:{body}`, keyed with the signing secret. */
export function signSlackRequest(secret: string, timestampSec: number, body: string): string {
  return `v0=${createHmac('sha256', secret).update(`v0:${timestampSec}:${body}`).digest('hex')}`;
}

/** The signing headers for a body signed now (or forged as asked). */
export function slackSignatureHeaders(
  signingSecret: string,
  body: string,
  forge?: Forgery,
): Record<string, string> {
  if (forge === 'missing-headers') return {};
  const shift = forge === undefined ? 0 : (FORGED_TIMESTAMP_SHIFT_SEC[forge] ?? 0);
  const timestampSec = Math.floor(Date.now() / 1000) + shift;
  const secret = forge === 'bad-signature' ? `${signingSecret}-forged` : signingSecret;
  return {
    'X-Slack-Request-Timestamp': String(timestampSec),
    'X-Slack-Signature': signSlackRequest(secret, timestampSec, body),
  };
}

export async function sendSlackRequest(
  target: string,
  signingSecret: string,
  body: string,
  contentType: SlackContentType,
  options: SendOptions = {},
): Promise<SignedResponse> {
  const headers = {
    'Content-Type': contentType,
    ...slackSignatureHeaders(signingSecret, body, options.forge),
    ...options.headers,
  };
  return sendExactly(target, { body, headers });
}

/** Posts a request's bytes and headers as they are: a replay when they were sent before. */
export async function sendExactly(target: string, request: SignedRequest): Promise<SignedResponse> {
  const started = performance.now();
  const response = await fetch(target, {
    method: 'POST',
    headers: request.headers,
    body: request.body,
  });
  const text = await response.text();
  observe('bot-answers', text);
  return { request, status: response.status, body: text, ackMs: performance.now() - started };
}

/** `http://127.0.0.1:PORT/slack/events` for the server `app.start(0)` returned. */
export function botEventsUrl(server: Server, path = '/slack/events'): string {
  const address = server.address();
  if (address === null || typeof address === 'string') {
    throw new Error('botEventsUrl: the bot server is not listening on a TCP port');
  }
  return `http://127.0.0.1:${address.port}${path}`;
}

export interface SlashCommandInput {
  readonly command?: string;
  /** As typed: the driver escapes `&`, `<` and `>` as Slack does. */
  readonly text: string;
  readonly userId: string;
  readonly userName?: string;
  readonly channelId: string;
  readonly channelName?: string;
  readonly teamId?: string;
}

export interface SlashCommandResult extends SignedResponse {
  readonly responseUrl: string;
  readonly responseUrlId: string;
  readonly triggerId: string;
}

export interface MessageRef {
  readonly channel: string;
  readonly ts: string;
  /** Defaults to what the emulation's channel model holds for that ts. */
  readonly blocks?: JsonObject[];
}

export type ViewRef = { readonly id: string } & JsonObject;

interface BlockActionBase {
  readonly userId: string;
  readonly actionId: string;
  /** Defaults to the clicked element's own `value`. */
  readonly value?: string;
  /** Defaults to the block holding the element with `actionId`. */
  readonly blockId?: string;
  /** `state.values` of the surface's input blocks. */
  readonly stateValues?: JsonObject;
}

/** A click on a message (public or ephemeral) or inside a modal/Home tab. */
export type BlockActionInput = BlockActionBase &
  (
    | { readonly message: MessageRef; readonly view?: never }
    | { readonly view: ViewRef; readonly message?: never }
  );

export interface BlockActionResult extends SignedResponse {
  readonly triggerId: string;
  /** Only message actions carry a response_url (and only then does Bolt offer `respond`). */
  readonly responseUrl?: string;
  readonly responseUrlId?: string;
}

export interface ViewSubmissionInput {
  readonly userId: string;
  /** Fields left out come from the view the emulation stored when the bot opened it. */
  readonly view: ViewRef & { readonly state: { readonly values: JsonObject } };
}

export interface ViewSubmissionResult extends SignedResponse {
  readonly triggerId: string;
  /** The ack body parsed, e.g. `{ response_action: 'errors', errors: { block: 'msg' } }`. */
  readonly ack: JsonObject | undefined;
}

export interface EventInput {
  /** The inner event, e.g. `{ type: 'app_home_opened', user, channel, tab: 'home' }`. */
  readonly event: JsonObject & { readonly type: string };
  /** Reuse an id to model Slack redelivering the same event. */
  readonly eventId?: string;
  readonly retryNum?: number;
  readonly retryReason?: string;
}

export interface EventResult extends SignedResponse {
  readonly eventId: string;
}

/** Slack still sends the deprecated verification token; Bolt ignores it. */
const VERIFICATION_TOKEN = 'emulation-verification-token';

let eventCounter = 0;

const slackTimestamp = (): string => (Date.now() / 1000).toFixed(6);

const SLACK_ESCAPES: Readonly<Record<string, string>> = { '&': '&amp;', '<': '&lt;', '>': '&gt;' };

/** Slack sends a slash command's `&`, `<` and `>` as entities, whatever `should_escape` says. */
export function escapeAsSlack(text: string): string {
  return text.replace(/[&<>]/g, (char) => SLACK_ESCAPES[char] ?? char);
}

/** Finds the interactive element with `actionId` in a list of blocks, and the block holding it. */
function findElement(
  blocks: readonly unknown[],
  actionId: string,
): { blockId: string | undefined; element: JsonObject } | undefined {
  for (const block of blocks.filter(isObject)) {
    const candidates = [
      block.accessory,
      block.element,
      ...(Array.isArray(block.elements) ? block.elements : []),
    ];
    const element = candidates
      .filter(isObject)
      .find((candidate) => candidate.action_id === actionId);
    if (element !== undefined) {
      return { blockId: typeof block.block_id === 'string' ? block.block_id : undefined, element };
    }
  }
  return undefined;
}

export class SlackDriver {
  constructor(
    private readonly emulation: DrivenSlack,
    /** The bot's endpoint, e.g. from `botEventsUrl(server)`. */
    readonly target: string,
  ) {}

  /** Sends a body as-is: the one place where the driver signs and posts. */
  send(
    body: string,
    contentType: SlackContentType,
    options?: SendOptions,
  ): Promise<SignedResponse> {
    return sendSlackRequest(
      this.target,
      this.emulation.config.signingSecret,
      body,
      contentType,
      options,
    );
  }

  /** Sends an earlier request's exact bytes and headers again, as an attacker replaying it would. */
  replay(request: SignedRequest): Promise<SignedResponse> {
    return sendExactly(this.target, request);
  }

  async slashCommand(input: SlashCommandInput, options?: SendOptions): Promise<SlashCommandResult> {
    const { config } = this.emulation;
    const responseUrl = this.emulation.issueResponseUrl({
      channelId: input.channelId,
      userId: input.userId,
    });
    const triggerId = this.emulation.issueTriggerId();
    const form = new URLSearchParams({
      token: VERIFICATION_TOKEN,
      team_id: input.teamId ?? config.teamId,
      team_domain: config.teamDomain,
      channel_id: input.channelId,
      channel_name: input.channelName ?? this.emulation.channelName(input.channelId),
      user_id: input.userId,
      user_name: input.userName ?? this.username(input.userId),
      command: input.command ?? '/pay',
      text: escapeAsSlack(input.text),
      api_app_id: config.apiAppId,
      is_enterprise_install: 'false',
      response_url: responseUrl.url,
      trigger_id: triggerId,
    });
    const response = await this.send(form.toString(), 'application/x-www-form-urlencoded', options);
    return { ...response, responseUrl: responseUrl.url, responseUrlId: responseUrl.id, triggerId };
  }

  async blockAction(input: BlockActionInput, options?: SendOptions): Promise<BlockActionResult> {
    const surface =
      input.message === undefined ? this.viewSurface(input.view) : this.messageSurface(input);
    const found = findElement(surface.blocks, input.actionId);
    const element = found?.element;
    const triggerId = this.emulation.issueTriggerId(input.view?.id);
    const action = {
      type: element?.type ?? 'button',
      action_id: input.actionId,
      block_id: input.blockId ?? found?.blockId ?? 'emulation-block',
      ...(element?.text === undefined ? {} : { text: element.text }),
      value: input.value ?? element?.value,
      ...(element?.style === undefined ? {} : { style: element.style }),
      action_ts: slackTimestamp(),
    };
    const payload = {
      type: 'block_actions',
      ...this.interactionBase(input.userId, triggerId),
      container: surface.container,
      ...surface.fields,
      state: { values: input.stateValues ?? {} },
      actions: [action],
    };
    const response = await this.sendInteraction(payload, options);
    return { ...response, triggerId, ...surface.responseUrl };
  }

  async viewSubmission(
    input: ViewSubmissionInput,
    options?: SendOptions,
  ): Promise<ViewSubmissionResult> {
    const triggerId = this.emulation.issueTriggerId(input.view.id);
    const payload = {
      type: 'view_submission',
      ...this.interactionBase(input.userId, triggerId),
      view: { ...this.emulation.view(input.view.id), ...input.view },
      response_urls: [],
    };
    const response = await this.sendInteraction(payload, options);
    return { ...response, triggerId, ack: parseAck(response.body) };
  }

  async event(input: EventInput, options?: SendOptions): Promise<EventResult> {
    const { config } = this.emulation;
    eventCounter += 1;
    const eventId = input.eventId ?? `Ev${String(eventCounter).padStart(9, '0')}`;
    const envelope = {
      token: VERIFICATION_TOKEN,
      team_id: config.teamId,
      api_app_id: config.apiAppId,
      event: { event_ts: slackTimestamp(), ...input.event },
      type: 'event_callback',
      event_id: eventId,
      event_time: Math.floor(Date.now() / 1000),
      authorizations: [
        {
          enterprise_id: null,
          team_id: config.teamId,
          user_id: config.botUserId,
          is_bot: true,
          is_enterprise_install: false,
        },
      ],
      is_ext_shared_channel: false,
    };
    const retryHeaders: Record<string, string> =
      input.retryNum === undefined
        ? {}
        : {
            'X-Slack-Retry-Num': String(input.retryNum),
            'X-Slack-Retry-Reason': input.retryReason ?? 'http_timeout',
          };
    const response = await this.send(JSON.stringify(envelope), 'application/json', {
      ...options,
      headers: { ...retryHeaders, ...options?.headers },
    });
    return { ...response, eventId };
  }

  private sendInteraction(payload: JsonObject, options?: SendOptions): Promise<SignedResponse> {
    const form = new URLSearchParams({ payload: JSON.stringify(payload) });
    return this.send(form.toString(), 'application/x-www-form-urlencoded', options);
  }

  private interactionBase(userId: string, triggerId: string): JsonObject {
    const { config } = this.emulation;
    const username = this.username(userId);
    return {
      user: { id: userId, username, name: username, team_id: config.teamId },
      api_app_id: config.apiAppId,
      token: VERIFICATION_TOKEN,
      trigger_id: triggerId,
      team: { id: config.teamId, domain: config.teamDomain },
      enterprise: null,
      is_enterprise_install: false,
    };
  }

  private username(userId: string): string {
    return this.emulation.user(userId)?.name ?? userId.toLowerCase();
  }

  private messageSurface(input: BlockActionBase & { readonly message: MessageRef }) {
    const { channel, ts } = input.message;
    const stored = this.emulation.message(channel, ts);
    const blocks = input.message.blocks ?? stored?.blocks ?? [];
    const isEphemeral = stored?.ephemeralTo !== undefined;
    const responseUrl = this.emulation.issueResponseUrl({
      channelId: channel,
      userId: input.userId,
      messageTs: ts,
    });
    return {
      blocks,
      container: {
        type: 'message',
        message_ts: ts,
        channel_id: channel,
        is_ephemeral: isEphemeral,
      },
      fields: {
        channel: { id: channel, name: this.emulation.channelName(channel) },
        message: {
          type: 'message',
          ts,
          text: stored?.text ?? '',
          blocks,
          user: this.emulation.config.botUserId,
          bot_id: this.emulation.config.botId,
        },
        response_url: responseUrl.url,
      },
      responseUrl: { responseUrl: responseUrl.url, responseUrlId: responseUrl.id },
    };
  }

  private viewSurface(ref: ViewRef) {
    const view = { ...this.emulation.view(ref.id), ...ref };
    return {
      blocks: Array.isArray(view.blocks) ? view.blocks : [],
      container: { type: 'view', view_id: ref.id },
      fields: { view },
      responseUrl: {},
    };
  }
}

function parseAck(body: string): JsonObject | undefined {
  if (body === '') return undefined;
  const parsed: unknown = JSON.parse(body);
  return isObject(parsed) ? parsed : undefined;
}
