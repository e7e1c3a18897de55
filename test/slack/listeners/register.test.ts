import type { App } from '@slack/bolt';
import { describe, expect, it } from 'vitest';
import { ACTION, VIEW } from '../../../src/slack/interaction-ids.ts';
import { register as registerActions } from '../../../src/slack/listeners/actions/index.ts';
import { register as registerCommands } from '../../../src/slack/listeners/commands/index.ts';
import { register as registerEvents } from '../../../src/slack/listeners/events/index.ts';
import { register as registerViews } from '../../../src/slack/listeners/views/index.ts';
import { commandOnFakes, eventDeps } from '../../helpers/listeners.ts';

/** An App that keeps what is registered on it: each listener's surface and id, in order. */
function fakeApp() {
  const registered: string[] = [];
  const on = (surface: string) => (id: string) => {
    registered.push(`${surface} ${id}`);
  };
  const app = {
    action: on('action'),
    view: on('view'),
    event: on('event'),
    command: on('command'),
  };
  return { app: app as unknown as App, registered };
}

describe('register', () => {
  it('registers a listener for every button and form payops draws, each event it reads, and the command under its configured name', () => {
    const { app, registered } = fakeApp();
    const { approvals, deps } = commandOnFakes();
    registerActions(app, approvals);
    registerViews(app, approvals);
    registerEvents(app, eventDeps());
    registerCommands(app, deps);
    expect(registered.sort()).toEqual(
      [
        ...Object.values(ACTION).map((id) => `action ${id}`),
        ...Object.values(VIEW).map((id) => `view ${id}`),
        'event app_home_opened',
        'event subteam_members_changed',
        'event subteam_updated',
        'command /payments',
      ].sort(),
    );
  });
});
