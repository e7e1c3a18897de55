import type { App } from '@slack/bolt';
import { readCommandHelp } from '../../app/help.ts';
import { renderHelp, renderNotAllowed } from '../blocks/messages.ts';
import type { CommandDeps } from './commands.ts';

export type AppHomeDeps = Omit<CommandDeps, 'channels' | 'approvals'>;

/** The Home tab shows each person what they may run, or whom to ask for access. */
export function registerAppHome(app: App, deps: AppHomeDeps): void {
  app.event('app_home_opened', async ({ event, client }) => {
    if (event.tab !== 'home') return;
    const access = await deps.access.check(deps.readers, event.user);
    const { blocks } = access.allowed
      ? renderHelp(readCommandHelp(deps.reads), deps.command)
      : renderNotAllowed(deps.accessAdmin);
    try {
      await client.views.publish({ user_id: event.user, view: { type: 'home', blocks } });
    } catch (error) {
      deps.logger.warn({ err: error, userId: event.user }, 'could not publish the Home tab');
    }
  });
}
