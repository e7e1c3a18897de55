import type { AllMiddlewareArgs, SlackEventMiddlewareArgs } from '@slack/bolt';
import type { EventDeps } from './deps.ts';

/**
 * Opening the Home tab draws it (src/slack/home-refresher.ts): the person's queue, their requests
 * and the last decisions, or whom to ask for access; it is redrawn whenever something in it changes.
 */
export function appHomeOpenedCallback(deps: EventDeps) {
  return async ({
    event,
  }: AllMiddlewareArgs & SlackEventMiddlewareArgs<'app_home_opened'>): Promise<void> => {
    if (event.tab !== 'home') return;
    await deps.home.opened(event.user, event.view).catch((error) => {
      deps.logger.warn({ err: error, userId: event.user }, 'could not record an opened Home tab');
    });
  };
}
