import type { Rehearsal } from '../rehearsal.ts';
import type { SlackMessage } from '../sandbox/slack.ts';
import type { Clickable, DemoConsole } from './demo-console.ts';
import type { TextStyle } from './to-text.ts';

/**
 * `payops demo --tour`: the approval flow played in the console, each step said before it is
 * typed. The script types what a person would, waits for what payops must show before going on
 * (never a fixed sleep), and plays the provider's side by moving the payout's status itself.
 */

const FREEZE_REASON = 'incident drill';

export const TOUR_SETTINGS = {
  /** The provider moves statuses only when the tour says so. */
  sandbox: { statusStepMs: 3_600_000 },
  /** payops looks at the provider's list often, so each move is told at once. */
  env: { PAYOPS_FOLLOW_INTERVAL_MS: '100' },
  /**
   * The warnings payops logs for the tour's own freeze drill (carol freezes, bob unfreezes): each
   * expected once, so only another line says payops logged something worth a look.
   */
  expectedLogLines: [
    { level: 40, msg: 'payments frozen', userId: 'U0CAROL', reason: FREEZE_REASON },
    { level: 40, msg: 'payments unfrozen', userId: 'U0BOB' },
  ],
};

const APPROVALS = 'C0APPROVALS';
const PAYOUT = (amount: string) =>
  `/pay payout wallet_id=wal_acme_sol_treasury amount=${amount} currency=USDC beneficiary_name="Jane Roe" beneficiary_account=000123456789 beneficiary_routing=021000021 destination_type=ach purpose="Invoice 2291"`;
const REASON = 'Jane Roe was paid already this week: this one is a duplicate.';

export interface TourContext {
  readonly rehearsal: Rehearsal;
  /** Set before the console reads its first line. */
  console?: DemoConsole;
  readonly style: TextStyle;
  readonly write: (text: string) => void;
}

/** The tour's lines, for the console to read; between them, what is said and waited for. */
export async function* tourScript(context: TourContext): AsyncGenerator<string> {
  const { rehearsal, style, write } = context;
  const slack = rehearsal.slack;
  const steps = 8;
  let step = 0;
  const say = (text: string) => {
    step += 1;
    write(`\n${style.bold(`── ${step}/${steps} ${text}`)}\n`);
  };
  const shell = () => {
    if (context.console === undefined) throw new Error('the tour has no console');
    return context.console;
  };
  const button = (label: string, requestNumber: number): Clickable => {
    const found = shell().findButton(
      (candidate) =>
        candidate.label === label &&
        'message' in candidate.surface &&
        candidate.surface.message.channel === APPROVALS &&
        cardText(slack.message(APPROVALS, candidate.surface.message.ts)).includes(
          `#${requestNumber} `,
        ),
    );
    if (found === undefined)
      throw new Error(`no ${label} button on request #${requestNumber}'s card`);
    return found;
  };
  const card = (requestNumber: number) =>
    slack
      .channel(APPROVALS)
      .messages.find((message) => cardText(message).includes(`#${requestNumber} `));
  const thread = (ts: string) =>
    slack
      .channel(APPROVALS)
      .messages.filter((message) => message.thread_ts === ts && message.ts !== ts)
      .map(cardText)
      .join('\n');

  const sent = () =>
    rehearsal.sandbox.requests.filter(
      (request) => request.operationId === 'createPayout' && request.executed,
    ).length;
  /** What must hold once payops has answered: the tour stops rather than tell a wrong story. */
  const check = (holds: boolean, what: string) => {
    if (!holds) throw new Error(what);
  };
  const until = (condition: () => boolean, what: string) => shell().showWhen(condition, what);

  say(
    'alice asks for a payout of 25.00 USDC, stating its purpose (payops requires one). Nothing is sent yet: payops posts an approval card in #approvals, purpose included, and tells alice where it is.',
  );
  yield PAYOUT('25.00');
  const approve = button('Approve', 1);

  say('alice tries to approve her own request. payops refuses: a second person must approve.');
  yield `click ${approve.ref}`;
  check(sent() === 0, 'the requester approved her own request');

  say(
    "bob, an approver, approves it. payops sends the payout to the provider exactly once, shows the provider's id on the card and tells alice in its thread.",
  );
  yield 'as bob';
  yield `click ${approve.ref}`;
  const first = card(1);
  check(first !== undefined, "request #1's card is gone");
  const firstTs = first?.ts ?? '';
  await until(() => thread(firstTs).includes('approved by'), 'thread message telling the approval');
  check(sent() === 1, `the payout was sent ${sent()} times, not once`);
  const providerId = /\bpo_[0-9a-z]+/.exec(cardText(card(1)))?.[0];
  if (providerId === undefined) throw new Error("request #1's card shows no provider id");

  say(
    "payops follows the payout at the provider by reading its list, and tells each change of its status in the card's thread, until a failure or, after a success, for a return or reversal. Here the tour plays the provider: it moves the payout to processing, then completed.",
  );
  for (const status of ['processing', 'completed']) {
    write(style.dim(`(the provider moves ${providerId} to ${status})\n`));
    rehearsal.sandbox.setRecordStatus(providerId, status);
    await until(() => thread(firstTs).includes(`\`${status}\``), `the change to ${status} told`);
  }

  say(
    'alice asks for a second payout, of 30.00 USDC, and carol rejects it: payops asks her why, in a form.',
  );
  yield 'as alice';
  yield PAYOUT('30.00');
  const reject = button('Reject', 2);
  yield 'as carol';
  yield `click ${reject.ref}`;

  say(
    'carol fills in the reason (fill asks for each field in turn) and submits the form: the card shows the rejection and its reason, alice reads it in the thread, and nothing is sent.',
  );
  yield 'fill';
  yield REASON;
  yield 'submit';
  const secondTs = card(2)?.ts ?? '';
  await until(() => thread(secondTs).includes(REASON), 'thread message telling the rejection');
  check(sent() === 1, 'a rejected request was sent');

  say(
    "carol freezes payments, the kill switch. alice's next request waits, and bob's approval of it is refused while payments are frozen.",
  );
  yield `/pay freeze ${FREEZE_REASON}`;
  yield 'as alice';
  yield PAYOUT('40.00');
  const third = button('Approve', 3);
  yield 'as bob';
  yield `click ${third.ref}`;
  check(sent() === 1, 'an approval went through while payments were frozen');

  say('bob unfreezes payments, and approves the waiting request again: now it is sent.');
  yield '/pay unfreeze';
  yield `click ${third.ref}`;
  const thirdTs = card(3)?.ts ?? '';
  await until(() => thread(thirdTs).includes('approved by'), 'thread message telling the approval');
  check(sent() === 2, `${sent() - 1} payouts were sent for request #3, not one`);

  write(`\n${style.bold('That was the whole flow. npm run demo lets you type it yourself.')}\n`);
  yield 'quit';
}

/** A message's text and blocks as one string, to look for words in. */
function cardText(message: SlackMessage | undefined): string {
  return message === undefined ? '' : `${message.text}\n${JSON.stringify(message.blocks ?? [])}`;
}
