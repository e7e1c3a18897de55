import type { AllMiddlewareArgs, SlackEventMiddlewareArgs } from '@slack/bolt';
import { describe, expect, it } from 'vitest';
import { appHomeOpenedCallback } from '../../../../src/slack/listeners/events/app-home-opened.ts';
import { FakeHome } from '../../../fakes/home.ts';
import { eventDeps } from '../../../helpers/listeners.ts';

type HomeOpenedArgs = AllMiddlewareArgs & SlackEventMiddlewareArgs<'app_home_opened'>;

/** `userId` opening payops's `tab`, Slack showing them `view`. */
async function open(home: FakeHome, tab: string, view?: { callback_id: string }) {
  const deps = eventDeps(undefined, home);
  const event = { type: 'app_home_opened', user: 'U0BOB', channel: 'D0BOB', tab, view };
  await appHomeOpenedCallback(deps)({ event } as unknown as HomeOpenedArgs);
  return deps.lines;
}

describe('appHomeOpenedCallback', () => {
  it('hands the opened Home tab, with what Slack shows, to the Home refresher to draw', async () => {
    const home = new FakeHome();
    await open(home, 'home', { callback_id: 'payops.home' });
    expect(home.openings).toEqual([{ userId: 'U0BOB', shown: { callback_id: 'payops.home' } }]);
  });

  it('leaves the Messages tab alone', async () => {
    const home = new FakeHome();
    await open(home, 'messages');
    expect(home.openings).toEqual([]);
  });

  it('logs a Home that could not be recorded as a warning, and does not throw to Bolt', async () => {
    const home = new FakeHome();
    home.failure = new Error('the database is gone');
    const lines = await open(home, 'home');
    expect(lines.join('')).toContain('could not record an opened Home tab');
    expect(lines.join('')).toContain('"userId":"U0BOB"');
  });
});
