import type { AllMiddlewareArgs, SlackEventMiddlewareArgs } from '@slack/bolt';
import type { EventDeps } from './deps.ts';

/** A user group's members changed: its cached members are dropped at once. */
export function subteamMembersChangedCallback(deps: EventDeps) {
  return async ({
    event,
  }: AllMiddlewareArgs & SlackEventMiddlewareArgs<'subteam_members_changed'>): Promise<void> => {
    deps.access.forget(event.subteam_id);
    deps.logger.info({ groupId: event.subteam_id }, 'user group changed; membership cache dropped');
  };
}
