import { describe, expect, it } from 'vitest';
import { parseRoleMembers } from '../../../src/domain/roles.ts';
import {
  InsufficientScopeError,
  RequestRejectedError,
  TimeoutError,
} from '../../../src/payments/errors.ts';
import {
  renderDirectoryUnavailable,
  renderHelp,
  renderInternalError,
  renderInvalid,
  renderMissingScopes,
  renderNotAllowed,
  renderNotCreated,
  renderPaymentsError,
  renderUnknown,
  renderWrongChannel,
} from '../../../src/slack/blocks/messages.ts';
import { allText, expectValidMessage } from './slack-message-checks.ts';

function textOf(message: Parameters<typeof expectValidMessage>[0]): string {
  expectValidMessage(message);
  return allText(message);
}

describe('renderHelp', () => {
  const entries = [
    {
      usage: '`/pay balance <walletId>` or `/pay balance`',
      summary: 'Read a wallet balance',
      available: true,
    },
    {
      usage: '`/pay wallets [--sync]`',
      summary: 'List wallets',
      available: true,
      reason: '--sync needs scope resources:write',
    },
    {
      usage: '/pay payouts',
      summary: 'List payouts',
      available: false,
      reason: 'needs scope payments:write',
    },
  ];

  it('lists what the user may run, and the unavailable commands with the reason', () => {
    const text = textOf(renderHelp(entries, '/pay'));
    expect(text).toContain(
      '• `/pay balance &lt;walletId&gt;` or `/pay balance` — Read a wallet balance',
    );
    expect(text).toContain('List wallets _(--sync needs scope resources:write)_');
    expect(text).toMatch(
      /Not available with this API key:\*\n• `\/pay payouts` — List payouts _\(needs scope payments:write\)_/,
    );
    expect(text).toContain('type `/pay help` to see this again');
  });

  it('puts available commands before unavailable ones', () => {
    const text = textOf(renderHelp([...entries].reverse(), '/pay'));
    expect(text.indexOf('/pay balance')).toBeLessThan(text.indexOf('/pay payouts'));
  });

  it('says so when nothing can run', () => {
    const text = textOf(renderHelp([entries[2] as (typeof entries)[number]], '/payops'));
    expect(text).toContain('None of the commands can run with this API key');
  });

  it('a very long help stays within Slack limits and says how much it shows', () => {
    const many = Array.from({ length: 400 }, (_, index) => ({
      usage: `/pay command-${index} <${'x'.repeat(40)}>`,
      summary: `Summary ${index} ${'y'.repeat(60)}`,
      available: index % 3 !== 0,
      reason: 'needs scope resources:write',
    }));
    expect(textOf(renderHelp(many, '/pay'))).toMatch(/Showing \d+ of 401 lines\./);
  });
});

describe('renderPaymentsError', () => {
  it("shows the error's own message and the code, status and request id in a context line", () => {
    const error = new RequestRejectedError('rejected', {
      operationId: 'listTransfers',
      status: 422,
      providerCode: 'INVALID_LIMIT',
      providerMessage: 'limit <!channel> too large & wrong',
      requestId: 'req_42',
    });
    const message = renderPaymentsError(error);
    const text = textOf(message);
    expect(text).toContain('The Payments API refused the request (422)');
    expect(text).toContain('limit &lt;!channel&gt; too large &amp; wrong');
    expect(JSON.stringify(message.blocks.at(-1))).toContain(
      'error `payments.rejected` · HTTP 422 · provider code `INVALID_LIMIT` · request id `req_42`',
    );
  });

  it('leaves out what the error does not carry', () => {
    const text = textOf(renderPaymentsError(new TimeoutError('t', { operationId: 'listWallets' })));
    expect(text).toContain('did not answer in time');
    expect(text).toContain('error `payments.timeout`');
    expect(text).not.toMatch(/HTTP|request id|provider code/);
  });

  it('a scope refusal from the provider says an administrator must grant it', () => {
    const error = new InsufficientScopeError('scope', { operationId: 'listWallets', status: 403 });
    expect(textOf(renderPaymentsError(error))).toContain('An administrator must grant');
  });
});

describe('renderMissingScopes', () => {
  it('names the missing scope, says the provider was not called and who must grant it', () => {
    const text = textOf(renderMissingScopes('List wallets', ['resources:write']));
    expect(text).toContain('*List wallets* needs the API key scope `resources:write`');
    expect(text).toContain('did not call the Payments API');
    expect(text).toContain('An administrator must grant it to the key.');
  });

  it('names every missing scope when there are several', () => {
    const text = textOf(
      renderMissingScopes('Create a deposit account', ['resources:write', 'payments:write']),
    );
    expect(text).toContain('scopes `resources:write`, `payments:write`');
    expect(text).toContain('must grant them');
  });
});

describe('renderInvalid and renderUnknown', () => {
  it("keeps the parser's code spans, escapes angle brackets and points to help", () => {
    const text = textOf(
      renderInvalid('`/pay balance` needs <walletId>. Usage: `/pay balance <walletId>`', '/pay'),
    );
    expect(text).toContain('`/pay balance` needs &lt;walletId&gt;.');
    expect(text).toContain('Type `/pay help` to see the commands.');
  });

  it('an unknown word gets the closest command and a pointer to help', () => {
    const text = textOf(renderUnknown('walets', 'wallets', '/pay'));
    expect(text).toContain('`/pay walets` is not a payops command.');
    expect(text).toContain('Did you mean `/pay wallets`?');
    expect(text).toContain('Type `/pay help`');
  });

  it('a write not created: one line per mistake, what was typed escaped', () => {
    const message = renderNotCreated(['amount: `1,000` is not a decimal', 'bogus: <!here> no']);
    const text = textOf(message);
    expect(message.text.split('\n')).toEqual([
      'The request was not created, and nothing was stored:',
      '• amount: `1,000` is not a decimal',
      '• bogus: &lt;!here&gt; no',
    ]);
    expect(text).toContain('• amount: `1,000` is not a decimal\n• bogus:');
  });

  it('an unknown word with no close command only points to help, and is escaped', () => {
    const text = textOf(renderUnknown('<!everyone>', undefined, '/pay'));
    expect(text).toContain('`/pay &lt;!everyone&gt;`');
    expect(text).not.toContain('Did you mean');
  });
});

describe('refusals', () => {
  it('not allowed: a polite refusal naming who administers access, mentions kept live', () => {
    const text = textOf(renderNotAllowed('<!subteam^S0FIN|finance-ops> or <@U024BE7LH>'));
    expect(text).toContain('Sorry, you are not on the list');
    expect(text).toContain('ask <!subteam^S0FIN|finance-ops> or <@U024BE7LH>.');
  });

  it('not allowed: a bare user or group id becomes a mention, other text is escaped', () => {
    expect(textOf(renderNotAllowed('U024BE7LH'))).toContain('ask <@U024BE7LH>.');
    expect(textOf(renderNotAllowed('S0FIN'))).toContain('ask <!subteam^S0FIN>.');
    const text = textOf(renderNotAllowed('Ana <!channel> & co'));
    expect(text).toContain('ask Ana &lt;!channel&gt; &amp; co.');
  });

  it('not an approver: names the approvers as mentions, and who grants the role', () => {
    const approvers = parseRoleMembers('U0BOB,S0LEADS', 'approver').members;
    const text = textOf(renderNotAllowed('S0FIN', approvers));
    expect(text).toContain('you are not an approver, so nothing was done');
    expect(text).toContain('The approvers are <@U0BOB>, <!subteam^S0LEADS>: ask one of them.');
    expect(text).toContain('ask <!subteam^S0FIN>.');
    expect(text).not.toContain('use payops');
  });

  it('not a requester: says they may not request, and names who may', () => {
    const requesters = parseRoleMembers('U0ALICE', 'requester').members;
    const text = textOf(renderNotAllowed('U0ADMIN', requesters));
    expect(text).toContain('you may not request payments or other writes');
    expect(text).toContain('Those who may are <@U0ALICE>');
    expect(text).toContain('ask <@U0ADMIN>.');
  });

  it('directory unavailable: membership could not be checked, try again', () => {
    const text = textOf(renderDirectoryUnavailable());
    expect(text).toContain('could not check your user-group membership');
    expect(text).toContain('try again');
  });

  it('wrong channel: names where payops works as channel links', () => {
    const text = textOf(renderWrongChannel(['C0123ABC', 'G0456DEF']));
    expect(text).toContain('run the command in <#C0123ABC>, <#G0456DEF>.');
    expect(textOf(renderWrongChannel([]))).toContain('not set up to answer in any channel');
  });

  it('internal error: gives the reference to quote for the logs', () => {
    const text = textOf(renderInternalError('a1b2c3d4'));
    expect(text).toContain('Something failed inside payops');
    expect(text).toContain('the reference `a1b2c3d4` so they can find it in the logs');
  });
});
