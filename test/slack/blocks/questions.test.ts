import type { ActionsBlock, Button, KnownBlock } from '@slack/types';
import { describe, expect, it } from 'vitest';
import { renderApprovalCard } from '../../../src/slack/blocks/approval-card.ts';
import type { SlackMessage } from '../../../src/slack/blocks/format.ts';
import { renderHome } from '../../../src/slack/blocks/home.ts';
import { renderQuestionNotice } from '../../../src/slack/blocks/questions.ts';
import { ACTION } from '../../../src/slack/interaction-ids.ts';
import { storedRequest } from '../../helpers/requests.ts';
import { expectValidMessage } from './slack-message-checks.ts';

const NOW = new Date('2026-03-01T12:00:00.000Z');
const QUESTION = { by: 'U0CAROL', at: '2026-03-01T11:00:00.000Z', text: 'Which invoice is it?' };
const PAYOUT = storedRequest(
  'createPayout',
  {},
  JSON.stringify({ wallet_id: 'wal_1', amount: '30.00', currency: 'USDC' }),
);

function card(request = PAYOUT) {
  return renderApprovalCard(request, { command: '/payments', now: NOW, labels: request.labels });
}

/** Slack's checks of a message, its buttons aside. */
function expectValidCard(message: SlackMessage): void {
  expectValidMessage({ ...message, blocks: message.blocks.filter((b) => b.type !== 'actions') });
}

function actionIds(blocks: readonly KnownBlock[]): string[] {
  return blocks
    .filter((block): block is ActionsBlock => block.type === 'actions')
    .flatMap((block) => (block.elements as Button[]).map((button) => button.action_id ?? ''));
}

describe('asking and resubmitting, on the card', () => {
  it('a pending card offers Ask a question beside Approve and Reject', () => {
    expect(actionIds(card().blocks)).toEqual([ACTION.approve, ACTION.reject, ACTION.ask]);
  });

  it('a question not yet answered by an approval shows the request waiting on its requester', () => {
    const asked = card({ ...PAYOUT, question: QUESTION });
    expectValidCard(asked);
    const shown = JSON.stringify(asked);
    expect(shown).toContain('*Waiting on the requester* <@U01>: <@U0CAROL> asked');
    expect(shown).toContain('Which invoice is it?');
    const approvedSince = { userId: 'U0BOB', at: '2026-03-01T11:30:00.000Z' };
    expect(
      JSON.stringify(card({ ...PAYOUT, question: QUESTION, approvals: [approvedSince] })),
    ).not.toContain('Waiting on the requester');
  });

  it('an edited request names the one it replaces and each change, masked', () => {
    const edited = card({
      ...PAYOUT,
      labels: {
        replaces: {
          id: 11,
          changes: [
            { field: 'amount', before: '25.50', after: '30.00' },
            { field: 'beneficiary_account', before: '••••6789', after: '••••4321' },
            { field: 'purpose', before: 'Invoice 2291', after: undefined },
          ],
        },
      },
    });
    expectValidCard(edited);
    const shown = JSON.stringify(edited);
    expect(shown).toContain('*Replaces #11*');
    expect(shown).toContain('• *Amount:* `25.50` → `30.00`');
    expect(shown).toContain('• *Account:* `••••6789` → `••••4321`');
    expect(shown).toContain('• *Purpose:* `Invoice 2291` → _none_');
  });

  it('a superseded card says by which request, and has no buttons', () => {
    const superseded = card({ ...PAYOUT, status: 'superseded', labels: { supersededBy: 13 } });
    expect(JSON.stringify(superseded)).toContain('*Superseded*');
    expect(JSON.stringify(superseded)).toContain('request #13');
    expect(actionIds(superseded.blocks)).toEqual([]);
  });

  it('on a Home, Ask a question answers on the Home, valued with what it showed', () => {
    const home = renderHome({
      queue: { requests: [PAYOUT], total: 1 },
      own: undefined,
      decisions: [],
      freeze: undefined,
      help: undefined,
      command: '/payments',
      now: NOW,
    });
    expect(actionIds(home.blocks)).toEqual([ACTION.homeApprove, ACTION.homeReject, ACTION.homeAsk]);
  });
});

describe('renderQuestionNotice', () => {
  it('mentions the requester, says who asks what, and offers Edit and resubmit', () => {
    const notice = renderQuestionNotice(PAYOUT, {
      by: 'U0CAROL',
      text: 'Which <!channel> invoice?',
    });
    expect(notice.text).toMatch(/^:question: <@U01> <@U0CAROL> asks about #12/);
    expect(notice.text).toContain('It stays pending');
    expect(notice.text).not.toContain('<!channel>');
    expect(actionIds(notice.blocks)).toEqual([ACTION.resubmit]);
    expect(JSON.stringify(notice.blocks)).toContain(`"value":"${PAYOUT.id}"`);
  });

  it('a notice whose body is not one payops wrote still says something', () => {
    expect(renderQuestionNotice(PAYOUT, null).text).toContain('_no question given_');
  });
});
