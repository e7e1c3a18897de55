import type { RespondFn } from '@slack/bolt';
import type { WebClient } from '@slack/web-api';
import type { Logger } from '../logger.ts';
import type { SlackMessage } from './blocks/format.ts';
import { platformErrorOf } from './slack-errors.ts';

/** What payops tells one person alone. */
export type PrivateMessage = SlackMessage | { text: string; blocks?: unknown[] };

/**
 * Where a private answer goes: the response_url of the command or click it answers (`respond`),
 * or, where there is none (a form's submission, a Home tab), an ephemeral in the channel the
 * person asked from, or else a direct message from payops.
 */
export type PrivateTarget =
  | RespondFn
  | { client: WebClient; channelId: string | undefined; userId: string };

/** The body of an answer through a response_url: seen by its person alone, the original kept. */
export function ephemeral<M extends PrivateMessage>(
  message: M,
): M & { response_type: 'ephemeral'; replace_original: false } {
  return { response_type: 'ephemeral', replace_original: false, ...message };
}

/**
 * Answers one person privately. An answer that cannot be delivered (an expired or exhausted
 * response_url, a lost connection) is logged with `context` (who asked, where): nothing more
 * can reach them for it.
 */
export async function answerPrivately(
  to: PrivateTarget,
  message: PrivateMessage,
  logger: Logger,
  context?: Record<string, string>,
): Promise<void> {
  try {
    if (typeof to === 'function') await to(ephemeral(message));
    else await postPrivately(to.client, to, message);
  } catch (error) {
    logger.warn({ err: error, ...context }, 'could not answer privately');
  }
}

/** Slack's answers to an ephemeral that no later try in that channel can change. */
const NOT_THERE = new Set([
  'channel_not_found',
  'not_in_channel',
  'user_not_in_channel',
  'is_archived',
]);

/**
 * `message` to `userId` alone: an ephemeral in `channelId` (where they asked), or a direct
 * message from payops where there is no such channel (a Home tab) or payops cannot post in it (a
 * channel it is not in, a direct message with someone else). A failure is thrown: the outbox
 * decides whether to try again.
 */
export async function postPrivately(
  client: WebClient,
  { channelId, userId }: { channelId: string | undefined; userId: string },
  message: PrivateMessage,
): Promise<void> {
  if (channelId !== undefined) {
    try {
      await client.chat.postEphemeral({ channel: channelId, user: userId, ...message });
      return;
    } catch (error) {
      const slackError = platformErrorOf(error);
      if (slackError === undefined || !NOT_THERE.has(slackError)) throw error;
    }
  }
  await client.chat.postMessage({ channel: userId, ...message });
}
