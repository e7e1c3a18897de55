import type { WebClient } from '@slack/web-api';
import type { GroupDirectory } from '../app/access.ts';

/** User group membership read from Slack (`usergroups.users.list`, scope usergroups:read). */
export function slackGroupDirectory(client: WebClient): GroupDirectory {
  return {
    async members(groupId) {
      const result = await client.usergroups.users.list({ usergroup: groupId });
      return result.users ?? [];
    },
  };
}

export interface BotIdentity {
  botId: string;
  botUserId: string;
  teamId: string | undefined;
}

/**
 * Resolved once at start-up and handed to Bolt: without `botId`/`botUserId` Bolt calls
 * `auth.test` on every incoming request, putting a Slack round trip inside each ack.
 */
export async function resolveBotIdentity(client: WebClient): Promise<BotIdentity> {
  const result = await client.auth.test();
  if (!result.bot_id || !result.user_id) {
    throw new Error('auth.test did not return bot_id and user_id: is SLACK_BOT_TOKEN a bot token?');
  }
  return { botId: result.bot_id, botUserId: result.user_id, teamId: result.team_id };
}
