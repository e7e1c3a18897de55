import { App, LogLevel } from '@slack/bolt';
import { ACTION } from '../src/slack/interaction-ids.ts';

/**
 * The floor payops is measured against: a bare Bolt app with the same Bolt, its default
 * HTTPReceiver, `botId`/`botUserId` set (so no `auth.test` call sits inside any request), and
 * handlers for `/pay` and the Approve button that only acknowledge. Run by the bench as a child
 * process, compiled like payops (`bench/tsconfig.build.json`), configured by its environment.
 */

function required(name: string): string {
  const value = process.env[name];
  if (!value) throw new Error(`bare-bolt: ${name} is not set`);
  return value;
}

const app = new App({
  token: required('SLACK_BOT_TOKEN'),
  signingSecret: required('SLACK_SIGNING_SECRET'),
  botId: required('SLACK_BOT_ID'),
  botUserId: required('SLACK_BOT_USER_ID'),
  logLevel: LogLevel.WARN,
  // These handlers make no Web API call; the discard port makes sure none could reach Slack.
  clientOptions: { slackApiUrl: 'http://127.0.0.1:9/api/' },
});

app.command('/pay', async ({ ack }) => {
  await ack();
});
app.action(ACTION.approve, async ({ ack }) => {
  await ack();
});

await app.start({ port: Number(required('PORT')), host: '127.0.0.1' });
process.once('SIGTERM', () => {
  app.stop().then(() => process.exit(0));
});
