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
  const result = await client.auth.test().catch((error: unknown) => {
    throw new SlackIdentityError(`failed (${innermostReason(error)})`, { cause: error });
  });
  if (!result.bot_id || !result.user_id) {
    throw new SlackIdentityError('did not return bot_id and user_id');
  }
  return { botId: result.bot_id, botUserId: result.user_id, teamId: result.team_id };
}

/**
 * What went wrong at the bottom of a Web API error: `ECONNREFUSED`, `getaddrinfo ENOTFOUND
 * slack.com` or Slack's own reason (`invalid_auth`) rather than "fetch failed". None carries the
 * token.
 */
function innermostReason(error: unknown): string {
  let current = error;
  for (let depth = 0; depth < 5; depth++) {
    const inner = current as { original?: unknown; cause?: unknown } | undefined;
    const next = inner?.original ?? inner?.cause;
    if (next === undefined || next === null) break;
    current = next;
  }
  const { code, message } = (current ?? {}) as { code?: unknown; message?: unknown };
  const text = typeof message === 'string' ? message : '';
  // A system error's code (`ECONNREFUSED`), which an aggregate of them may leave out of its text.
  if (typeof code === 'string' && /^[A-Z_]+$/.test(code) && !text.includes(code)) {
    return text ? `${code}: ${text}` : code;
  }
  return text || String(current);
}

/** Start-up could not learn who the bot is from Slack: it names the call and what to check. */
export class SlackIdentityError extends Error {
  constructor(what: string, options?: ErrorOptions) {
    super(
      `payops refused to start: Slack's auth.test call, which identifies the bot, ${what}. Check SLACK_BOT_TOKEN (the app's Bot User OAuth Token, xoxb-…) and SLACK_API_URL (unset for Slack itself; when set, a Slack Web API base URL this host can reach).`,
      options,
    );
    this.name = 'SlackIdentityError';
  }
}
