import type { Rehearsal } from '../../src/sandbox/rehearsal.ts';

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
