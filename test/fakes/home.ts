import type { HomeRefresher } from '../../src/slack/home-refresher.ts';

/**
 * The Home refresher as Slack's events reach it, in memory: every Home opened is kept, with
 * what Slack showed; `failure` makes recording one fail, as when the store cannot.
 */
export class FakeHome implements Pick<HomeRefresher, 'opened'> {
  readonly openings: Array<{ userId: string; shown: { callback_id?: string } | undefined }> = [];
  failure: Error | undefined;

  async opened(userId: string, shown?: { callback_id?: string }): Promise<void> {
    if (this.failure) throw this.failure;
    this.openings.push({ userId, shown });
  }
}
