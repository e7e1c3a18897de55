import type { ActionsBlock, Button, KnownBlock } from '@slack/types';
import { describe, expect, it } from 'vitest';
import type { PaymentRequest } from '../../../src/domain/approval.ts';
import { renderApprovalCard } from '../../../src/slack/blocks/approval-card.ts';
import { parseHomeButton, renderHome } from '../../../src/slack/blocks/home.ts';
import { renderHelp } from '../../../src/slack/blocks/messages.ts';
import { ACTION } from '../../../src/slack/interaction-ids.ts';
import { EXAMPLE_CALLS } from '../../helpers/payments.ts';
import { storedRequest } from '../../helpers/requests.ts';

const NOW = new Date('2026-03-01T12:00:00.000Z');

function request(id: number, overrides: Partial<PaymentRequest> = {}): PaymentRequest {
  const body = JSON.stringify({ ...EXAMPLE_CALLS.createPayout.body, amount: `${id}.00` });
  return storedRequest('createPayout', {}, body, {
    id,
    requiredApprovals: 2,
    approvals: [{ userId: 'U03', at: '2026-03-01T11:00:00.000Z', seal: undefined }],
    ...overrides,
  });
}

const buttons = (blocks: readonly KnownBlock[]) =>
  blocks.flatMap((block) => (block.type === 'actions' ? (block as ActionsBlock).elements : []));

describe('the Home tab', () => {
  it('stays within 100 blocks however long the queue, and says how many more wait', () => {
    const queue = Array.from({ length: 12 }, (_, index) => request(index + 1));
    const view = renderHome({
      queue: { requests: queue, total: 40 },
      own: Array.from({ length: 10 }, (_, index) => request(100 + index, { status: 'submitted' })),
      decisions: Array.from({ length: 5 }, (_, index) =>
        request(200 + index, { status: 'rejected' }),
      ),
      freeze: undefined,
      help: renderHelp([{ usage: 'wallets', summary: 'List wallets', available: true }], '/pay'),
      command: '/pay',
      now: NOW,
    });
    expect(view.blocks.length).toBeLessThanOrEqual(100);
    const text = JSON.stringify(view.blocks);
    const shown = buttons(view.blocks).filter((b) => b.action_id === ACTION.homeApprove).length;
    expect(shown).toBeGreaterThan(0);
    expect(text).toContain(`${40 - shown} more requests waiting for you`);
    expect(text).toContain('Your requests');
    expect(text).toContain('Last decisions');
    expect(text).toContain('/pay commands');
  });

  it('shows a request’s purpose in the queue, among one’s own requests and in the last decisions', () => {
    const purpose = (id: number) => request(id, { purpose: `Invoice ${id}` });
    const view = renderHome({
      queue: { requests: [purpose(1)], total: 1 },
      own: [purpose(2)],
      decisions: [purpose(3)],
      freeze: undefined,
      help: undefined,
      command: '/pay',
      now: NOW,
    });
    const text = JSON.stringify(view.blocks);
    for (const id of [1, 2, 3]) expect(text).toContain(`*Purpose:* Invoice ${id}`);
  });

  it('shows a request’s supporting document among one’s own requests and in the last decisions', () => {
    const document = {
      fileId: 'F0INVOICE1',
      name: 'invoice.pdf',
      size: 10,
      sha256: 'e'.repeat(64),
    };
    const view = renderHome({
      queue: { requests: [], total: 0 },
      own: [request(2, { document })],
      decisions: [request(3, { document })],
      freeze: undefined,
      help: undefined,
      command: '/pay',
      now: NOW,
    });
    const text = JSON.stringify(view.blocks);
    expect(text.split('*Document:* invoice.pdf (10 bytes, SHA-256 `eeeeeeeeeeee…`)')).toHaveLength(
      3,
    );
  });

  it('draws each queued request as its card, its buttons the Home’s, naming what was shown', () => {
    const queued = request(7);
    const view = renderHome({
      queue: { requests: [queued], total: 1 },
      own: undefined,
      decisions: [],
      freeze: undefined,
      help: undefined,
      command: '/pay',
      now: NOW,
    });
    const card = renderApprovalCard(queued, { command: '/pay', now: NOW });
    const [approve, reject] = buttons(view.blocks) as Button[];
    const [cardApprove] = buttons(card.blocks) as Button[];
    expect(approve?.action_id).toBe(ACTION.homeApprove);
    expect(reject?.action_id).toBe(ACTION.homeReject);
    expect(approve?.confirm).toEqual(cardApprove?.confirm);
    expect(parseHomeButton(approve?.value)).toEqual({
      id: 7,
      shown: { fingerprint: queued.fingerprint, approvals: 1 },
    });
    // Apart from its buttons, the card's blocks as they are.
    const withoutActions = (blocks: readonly KnownBlock[]) =>
      blocks.filter((block) => block.type !== 'actions' && block.type !== 'divider');
    expect(withoutActions(view.blocks).slice(1)).toEqual(withoutActions(card.blocks));
  });

  it('reads back only the buttons it made', () => {
    for (const value of [
      '',
      '12',
      '{"id":"12","fingerprint":"f","approvals":0}',
      '{"id":1}',
      '[]',
    ]) {
      expect(parseHomeButton(value)).toBeUndefined();
    }
  });
});
