import type { AllMiddlewareArgs, SlackEventMiddlewareArgs } from '@slack/bolt';
import type { EventDeps } from './deps.ts';

/** A user group was changed (its members among what may have): its cached members are dropped. */
export function subteamUpdatedCallback(deps: EventDeps) {
  return async ({
    event,
  }: AllMiddlewareArgs & SlackEventMiddlewareArgs<'subteam_updated'>): Promise<void> => {
    deps.access.forget(event.subteam.id);
  };
}
