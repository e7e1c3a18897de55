import { describe, expect, it } from 'vitest';
import {
  renderApprovalCard,
  renderRequesterConfirmation,
} from '../../../src/slack/blocks/approval-card.ts';
import { renderHome } from '../../../src/slack/blocks/home.ts';
import { renderReminder } from '../../../src/slack/blocks/reminders.ts';
import { renderRequestDetail, renderRequestList } from '../../../src/slack/blocks/request-views.ts';
import { storedRequest } from '../../helpers/requests.ts';

const COMMAND = '/payments';
const NOW = new Date('2026-03-01T12:00:00.000Z');
const FREEZE = { reason: 'Fraud alert', by: 'U03', at: '2026-03-01T10:00:00.000Z' };
/** `/pay` as a word of its own, not the start of `/payments`. */
const OLD_NAME = /\/pay(?![\w-])/;

const payout = (overrides = {}) =>
  storedRequest('createPayout', {}, JSON.stringify({ amount: '5.00' }), overrides);

describe('the approval flow names the command as configured', () => {
  it('on a card: the freeze banner and how to settle an unknown outcome', () => {
    const frozen = JSON.stringify(
      renderApprovalCard(payout(), { command: COMMAND, freeze: FREEZE, now: NOW }),
    );
    expect(frozen).toContain('refused until `/payments unfreeze`');
    const unknown = payout({ status: 'unknown', approvals: [{ userId: 'U02', at: FREEZE.at }] });
    const shown = JSON.stringify([
      renderApprovalCard(unknown, { command: COMMAND, now: NOW }),
      renderRequesterConfirmation(unknown, 'C0APPROVALS', COMMAND),
      renderRequestDetail(unknown, [], COMMAND),
    ]);
    expect(shown).toContain('`/payments resolve 12 executed|not-executed');
    expect([frozen, shown].filter((text) => OLD_NAME.test(text))).toEqual([]);
  });

  it('in a reminder while frozen, the list of pending requests and the Home tab', () => {
    const approvers = {
      role: 'approver' as const,
      users: new Set(['U02']),
      groups: new Set<string>(),
    };
    const reminder = renderReminder(payout(), 'reminder', approvers, FREEZE, COMMAND).text;
    expect(reminder).toContain('until `/payments unfreeze`');
    const list = JSON.stringify(renderRequestList([payout()], 1, COMMAND));
    expect(list).toContain('`/payments request &lt;n&gt;` shows one');
    const queue = Array.from({ length: 30 }, (_, index) => payout({ id: index + 1 }));
    const home = JSON.stringify(
      renderHome({
        queue: { requests: queue, total: 30 },
        own: undefined,
        decisions: [],
        freeze: undefined,
        help: undefined,
        command: COMMAND,
        now: NOW,
      }),
    );
    expect(home).toContain('`/payments requests` lists the pending requests');
    expect([reminder, list, home].filter((text) => OLD_NAME.test(text))).toEqual([]);
  });
});
