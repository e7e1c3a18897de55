import type { App } from '@slack/bolt';
import type { Logger } from '../../logger.ts';
import type { HomeRefresher } from '../home-refresher.ts';

export interface AppHomeDeps {
  home: Pick<HomeRefresher, 'opened'>;
  logger: Logger;
}

/**
 * Opening the Home tab draws it (src/slack/home-refresher.ts): the person's queue, their requests
 * and the last decisions, or whom to ask for access; it is redrawn whenever something in it changes.
 */
export function registerAppHome(app: App, deps: AppHomeDeps): void {
  app.event('app_home_opened', async ({ event }) => {
    if (event.tab !== 'home') return;
    await deps.home.opened(event.user, event.view).catch((error) => {
      deps.logger.warn({ err: error, userId: event.user }, 'could not record an opened Home tab');
    });
  });
}
