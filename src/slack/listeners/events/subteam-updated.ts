import type { AllMiddlewareArgs, SlackEventMiddlewareArgs } from '@slack/bolt';
import type { EventDeps } from './deps.ts';

/**
 * A user group was changed (its members among what may have): its cached members are dropped,
 * and an approver group is read again, as for `subteam_members_changed`.
 */
export function subteamUpdatedCallback(deps: EventDeps) {
  return async ({
    event,
  }: AllMiddlewareArgs & SlackEventMiddlewareArgs<'subteam_updated'>): Promise<void> => {
    const groupId = event.subteam.id;
    await deps.access.changed(groupId).catch((error: unknown) => {
      deps.logger.warn({ err: error, groupId }, 'could not read a changed user group');
    });
  };
}
