import type { WebClient } from '@slack/web-api';
import type { SlackMessage } from './blocks/format.ts';
import { platformErrorOf } from './slack-errors.ts';

/** Slack's answers to an ephemeral that no later try in that channel can change. */
const NOT_THERE = new Set([
  'channel_not_found',
  'not_in_channel',
  'user_not_in_channel',
  'is_archived',
]);

/**
 * `message` to `userId` alone: an ephemeral in `channelId` (where they asked), or, where payops
 * cannot post (a channel it is not in, a direct message with someone else), a direct message
 * from payops.
 */
export async function tellPrivately(
  client: WebClient,
  { channelId, userId }: { channelId: string; userId: string },
  message: SlackMessage | { text: string },
): Promise<void> {
  try {
    await client.chat.postEphemeral({ channel: channelId, user: userId, ...message });
  } catch (error) {
    const slackError = platformErrorOf(error);
    if (slackError === undefined || !NOT_THERE.has(slackError)) throw error;
    await client.chat.postMessage({ channel: userId, ...message });
  }
}
