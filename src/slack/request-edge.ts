import type { IncomingMessage, ServerResponse } from 'node:http';
import {
  type App,
  HTTPModuleFunctions,
  HTTPReceiver,
  type HTTPReceiverOptions,
  isRawBodyError,
  type ReceiverEvent,
} from '@slack/bolt';
import type { Logger } from '../logger.ts';

/** Where Slack sends every request (manifest.yml). */
const SLACK_PATH = '/slack/events';

/**
 * Slack's largest payload is a view submission, well under 100 KB. Bolt's own limit is 4 MB,
 * buffered whole before the signature is checked; a bigger body is refused with 413 unread.
 */
export const SLACK_BODY_LIMIT = 256 * 1024;

/**
 * How far ahead of ours Slack's clock may be. Bolt refuses only timestamps older than five
 * minutes, so a request signed with a timestamp ahead could be replayed for as long.
 */
export const MAX_CLOCK_AHEAD_SEC = 60;

/**
 * A signature as Slack writes it: `v0=` and the 64 lowercase hex digits of an HMAC-SHA256. Bolt
 * checks only what lies between the first and a second `=`, so `v0=<hex>=x` passes its check too:
 * refused here, a suffix can never make the same signed request new to the replay record.
 */
const SLACK_SIGNATURE = /^v0=[0-9a-f]{64}$/;

export interface ReplayGuard {
  /** True the first time a request's signature (`v0=<hex>`, nothing else) is seen, false for a replay. */
  firstSeen(signature: string, timestampSec: number): Promise<boolean>;
}

/**
 * Where signatures are remembered: this process's memory, asked before the ack, and the record
 * every replica shares, if any. The shared record is asked before the ack for what waits on
 * the ack's answer (forms, events); for a command or a click, it is asked at once and its
 * verdict awaited after the ack and before any work, so a burst's acks never wait on it.
 */
export interface Replays {
  local: ReplayGuard;
  shared?: ReplayGuard | undefined;
}

/** A replay found by the shared record after the ack: the listener stops before any work. */
export class ReplayedRequest extends Error {
  constructor() {
    super('a replayed Slack request was acknowledged and not worked on');
    this.name = 'ReplayedRequest';
  }
}

/** The shared record's verdict on a request, carried to the ack by Bolt's custom properties. */
const SHARED_VERDICT = 'payopsSharedReplayVerdict';

type Verdict = 'pass' | 'replay' | 400 | 401 | 413;

/**
 * Bolt's HTTP receiver, with what it lacks at its edge for every signed request: a body limit
 * fit for Slack, timestamps refused from the future as from the past, a signature only in Slack's
 * own form, a replay of the same signed bytes acknowledged and ignored, and a body that is not a JSON object refused (in Bolt 5.1 a
 * signed `null` crashes the process). Bolt then reads the buffered body and checks it again.
 */
export function createSlackReceiver(
  options: Omit<HTTPReceiverOptions, 'endpoints' | 'bodyLimit'> & { signingSecret: string },
  deps: { replays: Replays; logger: Logger },
): HTTPReceiver {
  const verdicts = new WeakMap<IncomingMessage, Promise<boolean>>();
  const receiver = new HTTPReceiver({
    ...options,
    endpoints: [SLACK_PATH],
    bodyLimit: SLACK_BODY_LIMIT,
    customPropertiesExtractor: (req) => {
      const verdict = verdicts.get(req);
      return verdict ? { [SHARED_VERDICT]: verdict } : {};
    },
  });
  const init = receiver.init.bind(receiver);
  receiver.init = (app) => init(verdictAfterAck(app));
  const bolt = receiver.requestListener;
  const screen = screening(options.signingSecret, deps.replays, verdicts);
  receiver.requestListener = (req, res) => {
    if (req.method !== 'POST' || pathOf(req) !== SLACK_PATH) return bolt(req, res);
    screen(req)
      .then((verdict) => {
        if (verdict === 'pass') return bolt(req, res);
        if (verdict === 'replay') {
          deps.logger.warn('a replayed Slack request was acknowledged and not worked on');
          return answer(res, 200);
        }
        deps.logger.warn({ status: verdict }, 'a Slack request was refused at the edge');
        answer(res, verdict);
      })
      .catch((error: unknown) => {
        deps.logger.error({ err: error }, 'a Slack request could not be screened');
        answer(res, 503);
      });
  };
  return receiver;
}

/**
 * Bolt's app, whose every ack of a request with a pending shared verdict then awaits it: a
 * replay throws out of the listener's `await ack()`, before it has done anything.
 */
function verdictAfterAck(app: App): App {
  const processEvent = async (event: ReceiverEvent): Promise<void> => {
    const { [SHARED_VERDICT]: verdict, ...customProperties } = event.customProperties ?? {};
    if (!(verdict instanceof Promise)) return app.processEvent(event);
    return app.processEvent({
      ...event,
      customProperties,
      ack: async (response) => {
        await event.ack(response);
        if (!(await verdict)) throw new ReplayedRequest();
      },
    });
  };
  // HTTPReceiver uses nothing of the app but processEvent.
  return { processEvent } as unknown as App;
}

function screening(
  signingSecret: string,
  replays: Replays,
  verdicts: WeakMap<IncomingMessage, Promise<boolean>>,
) {
  return async (req: IncomingMessage): Promise<Verdict> => {
    let buffered: Awaited<ReturnType<typeof HTTPModuleFunctions.parseAndVerifyHTTPRequest>>;
    try {
      buffered = await HTTPModuleFunctions.parseAndVerifyHTTPRequest(
        { enabled: true, signingSecret, bodyLimit: SLACK_BODY_LIMIT },
        req,
      );
    } catch (error) {
      return isRawBodyError(error) && error.statusCode === 413 ? 413 : 401;
    }
    let body: unknown;
    try {
      body = HTTPModuleFunctions.parseHTTPRequestBody(buffered);
    } catch {
      return 400;
    }
    if (!isObject(body) || !slackShaped(body)) return 400;
    // Slack's unsigned SSL check, answered by Bolt: nothing is verified, so nothing is recorded.
    if ((body as { ssl_check?: unknown }).ssl_check === '1') return 'pass';
    const signature = req.headers['x-slack-signature'];
    if (typeof signature !== 'string' || !SLACK_SIGNATURE.test(signature)) return 401;
    const timestampSec = Number(req.headers['x-slack-request-timestamp']);
    if (timestampSec > Date.now() / 1000 + MAX_CLOCK_AHEAD_SEC) return 401;
    if (!(await replays.local.firstSeen(signature, timestampSec))) return 'replay';
    if (replays.shared === undefined) return 'pass';
    const verdict = replays.shared.firstSeen(signature, timestampSec);
    if (!answeredAfterAck(body)) return (await verdict) ? 'pass' : 'replay';
    // Awaited after the ack; a request Bolt drops before any ack never awaits it.
    verdict.catch(() => undefined);
    verdicts.set(req, verdict);
    return 'pass';
  };
}

/** A command or a click: acknowledged with nothing to wait for, then worked on. */
function answeredAfterAck(body: Record<string, unknown>): boolean {
  return typeof body.command === 'string' || body.type === 'block_actions';
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Fields Bolt reads as objects, unchecked: anything else there fails inside it (a 500). */
const OBJECT_FIELDS = ['view', 'user', 'channel', 'container', 'message', 'event'];
/**
 * Names that reach Bolt's and our lookups as keys, and find what every object inherits
 * (`toString`, `__proto__`…): never a Slack id.
 */
const PROTOTYPE_KEYS = new Set([...Object.getOwnPropertyNames(Object.prototype), 'prototype']);

/**
 * What every request Slack sends looks like, as far as Bolt relies on it: a string `type`,
 * objects where it reads objects, `actions` a list of objects, a shortcut with its callback id,
 * and no id that is an object's own key.
 */
function slackShaped(body: Record<string, unknown>): boolean {
  if (body.type !== undefined && typeof body.type !== 'string') return false;
  if (OBJECT_FIELDS.some((key) => body[key] !== undefined && !isObject(body[key]))) return false;
  if (
    body.actions !== undefined &&
    !(Array.isArray(body.actions) && body.actions.every(isObject))
  ) {
    return false;
  }
  if (
    (body.type === 'shortcut' || body.type === 'message_action') &&
    typeof body.callback_id !== 'string'
  ) {
    return false;
  }
  if (readsUserOf(body) && !isObject(body.user)) return false;
  return !Object.entries(body).some(
    ([key, value]) => key.endsWith('_id') && typeof value === 'string' && PROTOTYPE_KEYS.has(value),
  );
}

/**
 * Whether Bolt takes the body for a click, an options request (any `name` field), a form or a
 * shortcut (its helpers' getTypeAndConversation, in its order): it then reads `user.id` and
 * `user.team_id`, unchecked.
 */
function readsUserOf(body: Record<string, unknown>): boolean {
  if (body.event !== undefined || body.command !== undefined) return false;
  return (
    body.name !== undefined ||
    body.actions !== undefined ||
    [
      'block_suggestion',
      'dialog_submission',
      'shortcut',
      'message_action',
      'view_submission',
      'view_closed',
    ].includes(String(body.type))
  );
}

function pathOf(req: IncomingMessage): string {
  return new URL(req.url ?? '/', 'http://localhost').pathname;
}

function answer(res: ServerResponse, status: number): void {
  // The rest of an oversized body is never read: the connection cannot carry another request.
  res.writeHead(status, status === 413 ? { connection: 'close' } : {});
  res.end();
}
