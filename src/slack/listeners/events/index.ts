import type { App } from '@slack/bolt';
import { appHomeOpenedCallback } from './app-home-opened.ts';
import type { EventDeps } from './deps.ts';
import { subteamMembersChangedCallback } from './subteam-members-changed.ts';
import { subteamUpdatedCallback } from './subteam-updated.ts';

/** What Slack tells payops happened: a Home tab opened, a user group changed. */
export function register(app: App, deps: EventDeps): void {
  app.event('app_home_opened', appHomeOpenedCallback(deps));
  app.event('subteam_members_changed', subteamMembersChangedCallback(deps));
  app.event('subteam_updated', subteamUpdatedCallback(deps));
}
