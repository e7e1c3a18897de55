import { describe, expect, it } from 'vitest';
import { renderReminder } from '../../../src/slack/blocks/reminders.ts';
import { storedRequest } from '../../helpers/requests.ts';

describe('renderReminder', () => {
  it('a freeze reason that ends its own sentence is not followed by a second full stop', () => {
    const request = storedRequest('createPayout', {}, JSON.stringify({ amount: '5.00' }));
    const approvers = {
      role: 'approver' as const,
      users: new Set(['U02']),
      groups: new Set<string>(),
    };
    for (const reason of ['Fraud alert.', 'Why?', 'Fraud alert']) {
      const freeze = { reason, by: 'U03', at: '2026-03-01T10:00:00.000Z' };
      const { text } = renderReminder(request, 'reminder', approvers, freeze, '/pay');
      expect(text).toContain(reason.replace(/[^.?]$/, '$&.'));
      expect(text).not.toMatch(/[.?]\./);
    }
  });
});
