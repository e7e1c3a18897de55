import {
  type SignedResponse,
  SlackDriver,
  type SlackEmulation,
  signSlackRequest,
} from '../src/rehearsal/sandbox/slack.ts';
import { ACTION } from '../src/slack/interaction-ids.ts';
import type { SignedRequest } from './load.ts';

/**
 * Slack requests built ahead of a run and signed once. The bytes come from the emulation's own
 * driver (a subclass that keeps them instead of posting them), so the benchmark sends exactly
 * what the end-to-end tests send, each with its own response_url and trigger_id issued by the
 * emulation.
 */

export const APPROVALS_CHANNEL = 'C0APPROVALS';
const COMMAND_CHANNEL = 'C0PAYOPS';

export interface BuiltRequest {
  request: SignedRequest;
  /** Where payops answers it, if it does. */
  responseUrlId: string | undefined;
}

/** A request's approval message: its number and the message's ts. */
export interface Card {
  id: number;
  ts: string;
}

class RecordingDriver extends SlackDriver {
  #body: string | undefined;

  override async send(body: string): Promise<SignedResponse> {
    this.#body = body;
    return { request: { body, headers: {} }, status: 0, body: '', ackMs: 0 };
  }

  take(): string {
    const body = this.#body;
    if (body === undefined) throw new Error('the driver built no request');
    this.#body = undefined;
    return body;
  }
}

export class SlackRequests {
  readonly #driver: RecordingDriver;
  readonly #signingSecret: string;

  constructor(private readonly emulation: SlackEmulation) {
    this.#driver = new RecordingDriver(emulation, 'unused: requests are only built here');
    this.#signingSecret = emulation.config.signingSecret;
  }

  /**
   * Requests that will never be answered (never sent, or sent to an app that only acks): the
   * emulation forgets their response_urls. Kept, each saturation run left thousands behind, all
   * live, for the bench's collector to mark again and again while payops is being measured.
   */
  forget(built: readonly BuiltRequest[]): void {
    this.emulation.forgetResponseUrls(answerIds(built));
  }

  /** `/pay <text>` typed by `userId` in #payops. */
  async command(text: string, userId: string): Promise<BuiltRequest> {
    const sending = this.#driver.slashCommand({ text, userId, channelId: COMMAND_CHANNEL });
    return this.#built(sending);
  }

  /** A click on Approve of `card`, with the value its button shows (the request and its fingerprint). */
  async approve(card: Card, userId: string): Promise<BuiltRequest> {
    const sending = this.#driver.blockAction({
      userId,
      actionId: ACTION.approve,
      message: { channel: APPROVALS_CHANNEL, ts: card.ts },
    });
    return this.#built(sending);
  }

  async many(count: number, build: (index: number) => Promise<BuiltRequest>) {
    const built: BuiltRequest[] = [];
    for (let index = 0; index < count; index++) built.push(await build(index));
    return built;
  }

  /** The driver hands its bytes to `send` before its first await: taken at once, they are this call's. */
  async #built(sending: Promise<{ responseUrlId?: string | undefined }>): Promise<BuiltRequest> {
    const request = this.#sign(this.#driver.take());
    return { request, responseUrlId: (await sending).responseUrlId };
  }

  #sign(body: string): SignedRequest {
    const timestampSec = Math.floor(Date.now() / 1000);
    return {
      body,
      timestampSec,
      signature: signSlackRequest(this.#signingSecret, timestampSec, body),
    };
  }
}

/** The response_urls of these requests, for those that have one. */
export function answerIds(built: readonly BuiltRequest[]): string[] {
  return built.flatMap((entry) => (entry.responseUrlId ? [entry.responseUrlId] : []));
}
