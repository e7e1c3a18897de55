import { describe, expect, it } from 'vitest';
import type { PaymentRequest } from '../../../src/domain/approval.ts';
import type { ProviderFollow } from '../../../src/domain/follow.ts';
import { renderApprovalCard, renderThreadUpdate } from '../../../src/slack/blocks/approval-card.ts';
import { renderRequestDetail } from '../../../src/slack/blocks/request-views.ts';
import { testSigner } from '../../helpers/requests.ts';
import { allText, expectNoLiveMarkup, expectValidMessage } from './slack-message-checks.ts';

/** What the card, the thread and `/pay request N` say of a followed record. */

const BODY = JSON.stringify({ wallet_id: 'wal_1', amount: '25.00', currency: 'USDC' });

function followed(follow: Partial<ProviderFollow>): PaymentRequest {
  return {
    id: 12,
    operationId: 'createPayout',
    path: {},
    body: BODY,
    fingerprint: testSigner.fingerprint('createPayout', {}, BODY),
    holdKey: testSigner.holdKey('createPayout', {}, BODY),
    requesterId: 'U01',
    status: 'submitted',
    requiredApprovals: 1,
    approvals: [{ userId: 'U02', at: '2026-03-01T10:01:00.000Z' }],
    createdAt: '2026-03-01T10:00:00.000Z',
    expiresAt: '2026-03-02T10:00:00.000Z',
    channelId: 'C1',
    messageTs: '1700000000.000100',
    decidedBy: undefined,
    reason: undefined,
    outcome: { status: 201, providerId: 'po_1', providerStatus: 'pending' },
    reconciliation: undefined,
    updatedAt: '2026-03-01T10:01:00.000Z',
    follow: {
      providerId: 'po_1',
      status: 'pending',
      history: [{ status: 'pending', seenAt: '2026-03-01T10:01:00.000Z' }],
      startedAt: '2026-03-01T10:01:00.000Z',
      lastCheckedAt: undefined,
      lastListedAt: undefined,
      disappearedAt: undefined,
      lastError: undefined,
      stoppedReason: undefined,
      stoppedAt: undefined,
      ...follow,
    },
  };
}

const card = (request: PaymentRequest) =>
  renderApprovalCard(request, { now: new Date('2026-03-01T12:00:00.000Z') });

describe('a followed record', () => {
  it('shows on the card its status, since when, and what it was, beside "submitted, not settled"', () => {
    const message = card(
      followed({
        status: 'processing',
        history: [
          { status: 'pending', seenAt: '2026-03-01T10:01:00.000Z' },
          { status: 'processing', seenAt: '2026-03-01T10:05:00.000Z' },
        ],
      }),
    );
    expectValidMessage(message);
    const text = allText(message);
    expect(text).toContain('Submitted to the provider, not settled.');
    expect(text).toContain(
      "*Provider status:* `processing` · <!date^1772359500^{ago}|2026-03-01T10:05:00.000Z> (was `pending`) · payops reads the provider's list until it shows a final status",
    );
  });

  it('a provider status is shown inert, whatever it holds', () => {
    const hostile = '<!channel> *paid* `x` <https://evil.example|click>';
    const request = followed({
      status: hostile,
      history: [
        { status: 'pending', seenAt: '2026-03-01T10:01:00.000Z' },
        { status: hostile, seenAt: '2026-03-01T10:05:00.000Z' },
      ],
    });
    expectNoLiveMarkup(card(request));
    const notice = renderThreadUpdate(request, 'provider_status:2');
    expectNoLiveMarkup({ text: notice.text.replace('<@U01>', ''), blocks: [] });
  });

  it('tells each change in the thread by its number, so a late notice still tells its own change', () => {
    const request = followed({
      status: 'returned',
      history: [
        { status: 'pending', seenAt: '2026-03-01T10:01:00.000Z' },
        { status: 'processing', seenAt: '2026-03-01T10:05:00.000Z' },
        { status: 'returned', seenAt: '2026-03-01T11:00:00.000Z', final: true },
      ],
      stoppedReason: 'final_status',
      stoppedAt: '2026-03-01T11:00:00.000Z',
    });
    expect(renderThreadUpdate(request, 'provider_status:2').text).toBe(
      '<@U01> #12 Provider status changed: `pending` → `processing`. payops keeps following it.',
    );
    expect(renderThreadUpdate(request, 'provider_status:3').text).toBe(
      '<@U01> #12 Provider status changed: `processing` → `returned`. It is a final status: payops no longer follows it.',
    );
    expect(allText(card(request))).toContain('(was `processing`) · final');
  });

  it('says when its record is missing, and when following stopped without a final status', () => {
    const missing = followed({
      lastListedAt: '2026-03-01T10:02:00.000Z',
      disappearedAt: '2026-03-01T10:03:00.000Z',
    });
    expect(renderThreadUpdate(missing, 'provider_missing').text).toBe(
      '<@U01> #12 is no longer listed at the provider (last seen `pending`). payops keeps looking and will tell any new status; check it at the provider.',
    );
    expect(allText(card(missing))).toContain(':warning: no longer listed at the provider since');

    const stopped = followed({
      stoppedReason: 'time_limit',
      stoppedAt: '2026-03-08T10:01:00.000Z',
    });
    expect(renderThreadUpdate(stopped, 'follow_stopped').text).toBe(
      '<@U01> #12 reached no final status at the provider in 7 days (last seen `pending`): payops no longer follows it. Check it at the provider.',
    );
    expect(allText(card(stopped))).toContain('no longer followed: no final status after 7 days');
  });

  it('/pay request N lists every status seen, and why the last look learnt nothing', () => {
    const request = followed({
      status: 'processing',
      history: [
        { status: 'pending', seenAt: '2026-03-01T10:01:00.000Z' },
        { status: 'processing', seenAt: '2026-03-01T10:05:00.000Z' },
      ],
      lastCheckedAt: '2026-03-01T10:06:00.000Z',
      lastError: 'could not read /payouts: the provider is unavailable',
    });
    const text = allText(renderRequestDetail(request, []));
    expect(text).toContain('*Provider status history* `po_1`');
    expect(text.indexOf('`pending`')).toBeLessThan(text.indexOf('`processing`'));
    expect(text).toContain('could not read /payouts: the provider is unavailable');
  });
});
