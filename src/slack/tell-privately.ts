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
 * `message` to `userId` alone: an ephemeral in `channelId` (where they asked), or a direct
 * message from payops where there is no such channel (a Home tab) or payops cannot post in it (a
 * channel it is not in, a direct message with someone else).
 */
export async function tellPrivately(
  client: WebClient,
  { channelId, userId }: { channelId: string | undefined; userId: string },
  message: SlackMessage | { text: string },
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
