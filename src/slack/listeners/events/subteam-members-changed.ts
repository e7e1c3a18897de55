import type { AllMiddlewareArgs, SlackEventMiddlewareArgs } from '@slack/bolt';
import type { EventDeps } from './deps.ts';

/**
 * A user group's members changed: its cached members are dropped at once, and an approver
 * group is read again, so its change is recorded and announced now. The event's own lists of
 * who was added and removed are not trusted: Slack may lose the event or send it twice, and a
 * read says who is in the group.
 */
export function subteamMembersChangedCallback(deps: EventDeps) {
  return async ({
    event,
  }: AllMiddlewareArgs & SlackEventMiddlewareArgs<'subteam_members_changed'>): Promise<void> => {
    const groupId = event.subteam_id;
    deps.logger.info({ groupId }, 'user group changed; membership cache dropped');
    await deps.access.changed(groupId).catch((error: unknown) => {
      deps.logger.warn({ err: error, groupId }, 'could not read a changed user group');
    });
  };
}
