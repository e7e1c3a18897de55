import type { Rehearsal } from '../../src/rehearsal/rehearsal.ts';
import type { JsonObject } from '../../src/rehearsal/sandbox/slack.ts';
import { ACTION, VIEW } from '../../src/slack/interaction-ids.ts';
import { payoutCommand } from './payments.ts';

export interface Answer {
  status: number;
  ackMs: number;
  /** The body posted to the command's response_url. */
  body: Record<string, unknown>;
  /** Everything the answer shows, as one string (text and blocks), for assertions. */
  shown: string;
}

/** Sends `/pay <text>` as a user, signed as Slack does, and waits for the answer. */
export async function ask(
  rehearsal: Rehearsal,
  text: string,
  { userId = 'U0ALICE', channelId = 'C0PAYOPS', timeoutMs = 8_000 } = {},
): Promise<Answer> {
  const sent = await rehearsal.driver.slashCommand({ text, userId, channelId });
  if (sent.status !== 200) throw new Error(`slash command got HTTP ${sent.status}: ${sent.body}`);
  const posted = await rehearsal.slack.nextResponse(sent.responseUrlId, { timeoutMs });
  const body = posted.body as Record<string, unknown>;
  return { status: sent.status, ackMs: sent.ackMs, body, shown: JSON.stringify(body) };
}

/** The approval message of request `id` as first posted (not a thread reply about it): its ts. */
export async function approvalMessageTs(
  rehearsal: Rehearsal,
  id: number,
  channelId = 'C0APPROVALS',
): Promise<string> {
  const card = await rehearsal.slack.waitForCall(
    'chat.postMessage',
    (call) =>
      call.args.channel === channelId &&
      call.args.thread_ts === undefined &&
      String(call.args.text).startsWith(`#${id} `),
  );
  return (card.response as unknown as { ts: string }).ts;
}

/** `/pay payout …` as alice: the new request's number and the ts of its approval message. */
export async function requestPayout(
  rehearsal: Rehearsal,
  fields: Readonly<Record<string, string>>,
): Promise<{ id: number; ts: string }> {
  const answer = await ask(rehearsal, payoutCommand(fields));
  const id = Number(/Request #(\d+)/.exec(answer.shown)?.[1]);
  if (!(id > 0)) throw new Error(`no request was created: ${answer.shown}`);
  return { id, ts: await approvalMessageTs(rehearsal, id) };
}

/** The request form's `state.values` filled in: `*_id` fields chosen from selects, others typed. */
export function requestFormValues(fields: Record<string, string>): Record<string, JsonObject> {
  return Object.fromEntries(
    Object.entries(fields).map(([field, value]) => [
      field,
      {
        [field]: field.endsWith('_id')
          ? { type: 'static_select', selected_option: { value } }
          : { type: 'plain_text_input', value },
      },
    ]),
  );
}

/** Types the bare `/pay payout` as alice; returns the id of the request form it opens. */
export async function openPayoutForm(rehearsal: Rehearsal): Promise<string> {
  const sent = await rehearsal.driver.slashCommand({
    text: 'payout',
    userId: 'U0ALICE',
    channelId: 'C0PAYOPS',
  });
  if (sent.status !== 200) throw new Error(`slash command got HTTP ${sent.status}: ${sent.body}`);
  const update = await rehearsal.slack.waitForCall('views.update', (call) =>
    JSON.stringify(call.args).includes(VIEW.request),
  );
  const view = update.args.view as { id?: string };
  return ((update.response as unknown as { view: { id: string } }).view.id ?? view.id) as string;
}

/** The approval message first posted with `ts`, as JSON: what its approvers were first shown. */
export function postedCard(rehearsal: Rehearsal, ts: string): string {
  return JSON.stringify(
    rehearsal.slack
      .callsTo('chat.postMessage')
      .find((call) => (call.response as { ts?: string } | undefined)?.ts === ts)?.args,
  );
}

/**
 * `userId` clicks Approve on the card at `ts` (in the approvals channel), its last approval:
 * waits for the card to say the write was submitted.
 */
export async function approveToSubmitted(
  rehearsal: Rehearsal,
  ts: string,
  userId = 'U0BOB',
): Promise<void> {
  await rehearsal.driver.blockAction({
    userId,
    actionId: ACTION.approve,
    message: { channel: 'C0APPROVALS', ts },
  });
  await rehearsal.slack.waitForCall(
    'chat.update',
    (call) => call.args.ts === ts && /submitted/i.test(String(call.args.text)),
    { timeoutMs: 8_000 },
  );
}

/** `/pay audit` as bob: the `requested` rows of the CSV it posts. */
export async function requestedAuditRows(rehearsal: Rehearsal): Promise<string[]> {
  await ask(rehearsal, 'audit', { userId: 'U0BOB' });
  const csv = rehearsal.slack.files().at(-1)?.bytes?.toString('utf8') ?? '';
  return csv.split('\r\n').filter((row) => row.includes('"requested"'));
}

/** The form a click opened: the first views.update after `before` of them that shows `callbackId`. */
export async function formOpened(
  rehearsal: Rehearsal,
  callbackId: string,
  before: number,
): Promise<{ id: string; shown: string }> {
  const form = await rehearsal.slack.waitForCall(
    'views.update',
    (call) =>
      rehearsal.slack.callsTo('views.update').indexOf(call) >= before &&
      JSON.stringify(call.args).includes(callbackId),
  );
  return { id: String(form.args.view_id), shown: JSON.stringify(form.args.view) };
}

/** The payouts the Payments sandbox received, in order. */
export function payoutsSent(rehearsal: Rehearsal) {
  return rehearsal.sandbox.requests.filter((entry) => entry.operationId === 'createPayout');
}
