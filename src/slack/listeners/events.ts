import type { App } from '@slack/bolt';
import type { AccessControl } from '../../app/access.ts';
import type { Logger } from '../../logger.ts';

export interface EventDeps {
  access: AccessControl;
  logger: Logger;
}

/** Slack tells us when a user group changes: drop its cached members at once. */
export function registerEvents(app: App, deps: EventDeps): void {
  app.event('subteam_members_changed', async ({ event }) => {
    deps.access.forget(event.subteam_id);
    deps.logger.info({ groupId: event.subteam_id }, 'user group changed; membership cache dropped');
  });
  app.event('subteam_updated', async ({ event }) => {
    deps.access.forget(event.subteam.id);
  });
}
