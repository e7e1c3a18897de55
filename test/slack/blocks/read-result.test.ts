import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { OPERATION_IDS, OPERATIONS, type OperationId } from '../../../src/domain/operations.ts';
import { ServerError } from '../../../src/payments/errors.ts';
import { renderAllBalances, renderRead } from '../../../src/slack/blocks/read-result.ts';
import { allText, expectValidMessage } from './slack-message-checks.ts';

const READ_IDS = OPERATION_IDS.filter((id) => OPERATIONS[id].kind === 'read');

function read(operationId: OperationId, body: unknown, requestId?: string) {
  const message = renderRead(operationId, body, requestId ? { requestId } : {});
  expectValidMessage(message);
  return { message, text: allText(message) };
}

/** A provider string that itself spells a garbage word could not prove anything against us. */
const spellsGarbage = (body: unknown) =>
  /undefined|\[object Object\]|NaN/.test(JSON.stringify(body) ?? '');

const sections = (message: { blocks: Array<{ type: string }> }) =>
  message.blocks.filter((block) => block.type === 'section');

const wallet = (index: number) => ({
  id: `wal_${index}`,
  chain: 'ethereum',
  created_at: '2025-01-14T09:12:44.000Z',
});

describe('renderRead: finding the list in any shape', () => {
  it('a bare array gives one section per item under a header naming the operation', () => {
    const { message, text } = read('listWallets', [wallet(1), wallet(2)]);
    expect(message.blocks[0]).toMatchObject({ type: 'header', text: { text: 'List wallets' } });
    expect(sections(message)).toHaveLength(2);
    expect(text).toContain('`wal_1`');
    expect(message.text).toContain('2 items');
  });

  it('a `data` envelope is unwrapped and its other fields are shown once, above the items', () => {
    const { message, text } = read('listWallets', { data: [wallet(1)], has_more: false });
    expect(text).toContain('has_more: false');
    expect(sections(message)).toHaveLength(2);
  });

  it('`items` with a provider total says "showing N of total" and why', () => {
    const items = Array.from({ length: 10 }, (_, index) => wallet(index));
    const { message } = read('listWallets', { items, total: 120 });
    expect(message.text).toContain('showing 10 of 120');
    expect(JSON.stringify(message.blocks.at(-1))).toContain(
      'Showing 10 of 120: the provider sent 10 in this reply.',
    );
  });

  it('an empty list says so, and a total announced without items is reported as such', () => {
    expect(read('listDeposits', { data: [] }).text).toContain('The list is empty.');
    expect(read('listDeposits', { data: [], total: 7 }).text).toContain(
      'The provider reports 7 in total but sent none in this reply.',
    );
  });

  it('a 500-item list is cut to Slack limits with "showing N of 500"', () => {
    const items = Array.from({ length: 500 }, (_, index) => ({
      ...wallet(index),
      name: `Treasury wallet number ${index}`,
      status: 'active',
      address: `0x${String(index).padStart(40, '0')}`,
    }));
    const { message } = read('listWallets', items, 'req_500');
    const shown = sections(message).length;
    expect(shown).toBeGreaterThan(10);
    expect(message.text).toContain(`showing ${shown} of 500`);
    expect(JSON.stringify(message.blocks.at(-1))).toContain(
      `Showing ${shown} of 500: the rest did not fit in one Slack message.`,
    );
  });

  it('a list read whose reply holds no list is shown as a record', () => {
    const { text } = read('listRecipients', { id: 'ea_1', status: 'active' });
    expect(text).toContain('`ea_1`');
    expect(text).toContain('status: active');
  });
});

describe('renderRead: key fields first, the rest compact', () => {
  it('an item leads with id in code style, name, amount with currency, status and date', () => {
    const { message } = read('listPayouts', [
      {
        reference_note: 'March invoice',
        id: 'po_1',
        status: 'processing',
        amount: '1250.50',
        currency: 'USDC',
        label: 'Supplier run',
        created_at: '2025-03-02T09:10:30Z',
      },
    ]);
    const item = JSON.stringify(sections(message).at(-1));
    const [headline, details] = JSON.parse(item).text.text.split('\n');
    expect(headline).toMatch(/^`po_1` · \*Supplier run\* · 1,250\.50 USDC · status: processing · /);
    expect(headline).toContain('created_at: <!date^1740906630^');
    expect(details).toBe('reference_note: March invoice');
  });

  it('nested objects are flattened to `a.b: v` and arrays are summarised', () => {
    const { text } = read('getRecipient', {
      id: 'ea_1',
      address: { city: 'Berlin', geo: { country: 'DE' } },
      payment_rails: ['sepa', 'swift', 'instant'],
      tags: [],
      history: Array.from({ length: 20 }, (_, index) => ({ id: `h_${index}` })),
    });
    expect(text).toContain('address.city: Berlin');
    expect(text).toContain('address.geo.country: DE');
    expect(text).toContain('payment_rails: sepa, swift, instant');
    expect(text).toContain('tags: none');
    expect(text).toContain('history: `h_0`');
    expect(text).toContain('(+12 more)');
  });

  it('null, empty and missing values are left out rather than printed', () => {
    const { text } = read('getRecipient', { id: 'ea_1', note: null, memo: '', extra: {} });
    expect(text).not.toMatch(/note|memo|extra|null/);
  });

  it('a backtick inside an id cannot end its code span', () => {
    const { text } = read('getRecipient', { id: 'ea_`1`' });
    expect(text).toContain('`ea_ˋ1ˋ`');
  });

  it('timestamps become Slack date tokens that fall back to the provider text', () => {
    const { text } = read('getRecipient', { id: 'ea_1', updated: '2025-01-14T09:12:44.000Z' });
    expect(text).toContain(
      'updated: <!date^1736845964^{date_short_pretty} {time_secs}|2025-01-14T09:12:44.000Z>',
    );
    expect(read('getRecipient', { id: 'ea_1', day: '2025-01-14' }).text).toContain(
      'day: 2025-01-14',
    );
  });
});

describe('renderRead: amounts are the provider digits, with their currency', () => {
  it('nested balances keep "1250.50" as "1250.50" with each currency', () => {
    const { text } = read('getWalletBalance', {
      wallet_id: 'wal_1',
      balances: [
        { currency: 'USDC', amount: '1250.50' },
        { currency: 'USDT', amount: '310.00' },
      ],
    });
    expect(text).toContain('1,250.50 USDC, 310.00 USDT');
    expect(text).not.toMatch(/1250\.5(?!0)/);
  });

  it('`{available, currency}` is shown as a labelled amount', () => {
    expect(read('getWalletBalance', { available: '0.10', currency: 'USD' }).text).toContain(
      'available: 0.10 USD',
    );
  });

  it('a map of currency to amount under a balance key reads as amounts', () => {
    expect(
      read('getWalletBalance', { balances: { USDC: '1250.50', USDT: '310.00' } }).text,
    ).toContain('1,250.50 USDC, 310.00 USDT');
  });

  it('a nested `{amount, currency}` becomes one amount under its key', () => {
    const { text } = read('listTransfers', [
      {
        id: 'tr_1',
        amount: { value: '99.90', currency: 'EUR' },
        fee: { amount: '0.10', currency: 'EUR' },
      },
    ]);
    expect(text).toContain('`tr_1` · 99.90 EUR');
    expect(text).toContain('fee: 0.10 EUR');
  });

  it('an amount takes the currency named by its own prefix, else `source_currency`', () => {
    const { text } = read('listTransfers', [
      {
        id: 'tr_1',
        amount: '100.00',
        source_currency: 'USDC',
        destination_amount: '1712.345',
        destination_currency: 'MXN',
      },
    ]);
    expect(text).toContain('100.00 USDC');
    expect(text).toContain('destination_amount: 1,712.345 MXN');
  });

  it('long and odd decimals are never rounded: only their thousands are grouped', () => {
    const shown = {
      '12345678901234567890.123456789012345': '12,345,678,901,234,567,890.123456789012345',
      '0.000000001': '0.000000001',
      '-5.10': '-5.10',
      '1e-7': '1e-7',
    };
    const { text } = read(
      'listDeposits',
      Object.keys(shown).map((amount, index) => ({ id: `d_${index}`, amount, currency: 'USDC' })),
    );
    for (const amount of Object.values(shown)) expect(text).toContain(amount);
  });

  it('an FX rate keeps all its decimals and is labelled indicative, not a quote', () => {
    const { text } = read('getFxRate', {
      from: 'EUR',
      to: 'USD',
      amount: '100',
      rate: '0.918437123',
      converted_amount: '91.84',
    });
    expect(text).toContain('rate: 0.918437123');
    expect(text).toContain('converted_amount: 91.84');
    expect(text).toContain('Indicative, not a quote');
    expect(text).toMatch(/no executable rate, fee or timing/);
  });

  it('latest FX data is labelled indicative too', () => {
    const { text } = read('getFxLatest', { base: 'USD', rates: { EUR: '0.9184', MXN: '17.12' } });
    expect(text).toContain('Indicative, not a quote');
    expect(text).toContain('rates.EUR: 0.9184');
  });
});

describe('renderRead: sensitive data', () => {
  const ACCOUNT = '000123456789';
  const IBAN = 'DE89370400440532013000';

  it('banking numbers are masked at any depth and never appear in full', () => {
    const { text } = read('listRecipients', {
      data: [
        {
          id: 'ea_1',
          account_owner_name: 'Northwind Components Inc',
          account_number: ACCOUNT,
          routing_number: '021000021',
          bank: { details: { iban: IBAN, bic: 'DEUTDEFF' } },
          previous: [{ beneficiary_account: '99887766554433' }],
          swift: ['BCIRLULL'],
        },
      ],
    });
    for (const secret of [ACCOUNT, IBAN, '021000021', '99887766554433', 'DEUTDEFF', 'BCIRLULL']) {
      expect(text).not.toContain(secret);
    }
    expect(text).toContain('account_number: ••••6789');
    expect(text).toContain('bank.details.iban: ••••3000');
    expect(text).toContain('Northwind Components Inc');
  });

  it('banking numbers under names the spec does not use are masked too', () => {
    const { text } = read('getRecipient', {
      id: 'ea_1',
      accountNumber: ACCOUNT,
      bank_account: { number: '5555666677', routingNo: '021000021' },
      IBAN_code: IBAN,
    });
    for (const secret of [ACCOUNT, IBAN, '5555666677', '021000021']) {
      expect(text).not.toContain(secret);
    }
    expect(text).toContain('accountNumber: ••••6789');
    expect(text).toContain('bank_account.number: ••••6677');
  });

  it('a whole object under a banking key is masked, and a number-typed account too', () => {
    const { text } = read('getRecipient', {
      id: 'ea_1',
      account_number: { value: ACCOUNT, kind: 'checking' },
      routing_number: 21000021,
    });
    expect(text).not.toContain(ACCOUNT);
    expect(text).not.toContain('checking');
    expect(text).not.toContain('21000021');
  });

  it('a key or token echoed by the provider is hidden', () => {
    const { text } = read('getMe', {
      customer: { id: 'cus_1' },
      api_key: { value: 'sk_live_x', scopes: ['read'] },
      token: 'tok_1',
    });
    expect(text).not.toContain('tok_1');
    expect(text).not.toContain('sk_live_x');
    expect(text).toContain('api_key.value: [hidden]');
    expect(text).toContain('token: [hidden]');
    expect(text).toContain('`read`');
  });

  it('provider text cannot inject mentions or links: `<`, `>` and `&` are escaped', () => {
    const { message, text } = read('listRecipients', [
      { id: 'ea_<!here>', name: '<!channel> & <https://evil.example|click>', '<@U123>': 'x' },
    ]);
    expect(text).toContain('&lt;!channel&gt; &amp; &lt;https://evil.example|click&gt;');
    expect(text).not.toContain('<!channel>');
    expect(text).not.toContain('<!here>');
    expect(text).not.toContain('<@U123>');
    expect(message.blocks.some((block) => block.type === 'section')).toBe(true);
  });
});

describe('renderRead: wording of particular reads', () => {
  it('health says it proves reachability only', () => {
    const { text } = read('health', { status: 'ok' });
    expect(text).toContain('answered with status `ok`');
    expect(text).toContain('This proves reachability only');
  });

  it('health still says reachability only for an unexpected body', () => {
    for (const body of [null, 'OK', { up: true }]) {
      expect(read('health', body).text).toContain('This proves reachability only');
    }
  });

  it('getMe shows business name, customer id and key scopes, once each', () => {
    const { text } = read('getMe', {
      customer: { id: 'cus_acme01', business_name: 'Acme Treasury GmbH', country: 'DE' },
      api_key: { scopes: ['read', 'payments:write'] },
    });
    expect(text).toContain('*Business:* Acme Treasury GmbH');
    expect(text).toContain('*Customer id:* `cus_acme01`');
    expect(text).toContain('*Key scopes:* `read`, `payments:write`');
    expect(text).toContain('customer.country: DE');
    expect(text.match(/cus_acme01/g)).toHaveLength(1);
  });

  it('getMe says what the reply lacks instead of guessing', () => {
    const { text } = read('getMe', {});
    expect(text).toContain('*Business:* _not in the reply_');
    expect(text).toContain('*Key scopes:* _none listed_');
  });

  it("transfer and payout statuses are the provider's words and nothing implies settlement", () => {
    for (const id of ['listTransfers', 'listPayouts'] as const) {
      const { text } = read(id, [
        { id: 'x_1', status: 'completed' },
        { id: 'x_2', status: 'pending' },
      ]);
      expect(text).toContain('status: completed');
      expect(text).toContain('status: pending');
      expect(text).toContain('No status here is proof of final settlement.');
      expect(text).not.toMatch(/settled|:white_check_mark:|✅|succeeded/i);
    }
  });

  it("the provider's request id is in the footer when given, and only then", () => {
    const withId = read('listWallets', [wallet(1)], 'req_7f3a');
    expect(JSON.stringify(withId.message.blocks.at(-1))).toContain('Request id `req_7f3a`');
    expect(read('listWallets', [wallet(1)]).text).not.toContain('Request id');
  });
});

describe('renderRead: odd and huge bodies stay within Slack limits', () => {
  it('null, empty string, scalars and booleans get a plain sentence', () => {
    expect(read('getRecipient', null).text).toContain('The provider sent an empty reply.');
    expect(read('getRecipient', '').text).toContain('The provider sent an empty reply.');
    expect(read('getRecipient', undefined).text).toContain('The provider sent an empty reply.');
    expect(read('getRecipient', 42).text).toContain('The provider answered: 42');
    expect(read('getRecipient', false).text).toContain('The provider answered: false');
    expect(read('getRecipient', {}).text).toContain('The reply has no fields.');
  });

  it('a record too long for one message is cut with "showing N of M fields"', () => {
    const body = Object.fromEntries(
      Array.from({ length: 150 }, (_, index) => [`field_${index}`, 'v'.repeat(150)]),
    );
    const { message } = read('getRecipient', body);
    expect(JSON.stringify(message.blocks.at(-1))).toMatch(/Showing \d+ of 150 fields\./);
  });

  it('a record with thousands of fields is read only up to a bound, and says so', () => {
    const body = Object.fromEntries(
      Array.from({ length: 5000 }, (_, index) => [`field_${index}`, `value ${index}`]),
    );
    const { message } = read('getRecipient', body);
    expect(JSON.stringify(message.blocks.at(-1))).toMatch(/Showing \d+ of more than 200 fields\./);
  });

  it('very deep nesting is summarised, not walked to the bottom', () => {
    let body: unknown = { leaf: 'bottom' };
    for (let depth = 0; depth < 500; depth++) body = { id: `n_${depth}`, child: body };
    const { text } = read('getRecipient', body);
    expect(text).toContain('child.child.child: (2 nested fields)');
  });

  it('very long strings and keys are truncated', () => {
    const long = 'x'.repeat(100_000);
    read(
      'listWallets',
      Array.from({ length: 60 }, () => ({ [long]: long, name: long, id: long })),
    );
  });

  it('every read operation renders any JSON body within limits, without garbage', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...READ_IDS),
        fc.jsonValue(),
        fc.option(fc.string()),
        (id, body, requestId) => {
          if (spellsGarbage(body)) return;
          read(id, body, requestId ?? undefined);
        },
      ),
      { numRuns: 400 },
    );
  });

  it('arbitrary values made JSON-safe render within limits, without garbage', () => {
    const jsonSafe = fc
      .anything({ maxDepth: 6 })
      .map((value) => JSON.parse(JSON.stringify(value) ?? 'null') as unknown);
    fc.assert(
      fc.property(fc.constantFrom(...READ_IDS), jsonSafe, (id, body) => {
        if (spellsGarbage(body)) return;
        read(id, body);
      }),
      { numRuns: 400 },
    );
  });

  it('bodies with any Unicode text render within limits, without garbage', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...READ_IDS),
        fc.jsonValue({ stringUnit: 'binary' }),
        (id, body) => {
          if (spellsGarbage(body)) return;
          read(id, body);
        },
      ),
      { numRuns: 200 },
    );
  });

  it('large generated lists and records stay within limits', () => {
    const record = fc.dictionary(fc.string({ maxLength: 30 }), fc.jsonValue({ maxDepth: 3 }), {
      maxKeys: 40,
    });
    fc.assert(
      fc.property(fc.array(record, { minLength: 100, maxLength: 300 }), (items) => {
        if (spellsGarbage(items)) return;
        read('listTransfers', { data: items, total: 1000 });
      }),
      { numRuns: 30 },
    );
  });
});

describe('renderAllBalances', () => {
  const error = new ServerError('boom', {
    operationId: 'getWalletBalance',
    status: 503,
    requestId: 'req_9',
  });

  it('shows one section per wallet with its amounts verbatim and each failure in place', () => {
    const message = renderAllBalances(
      [
        {
          walletId: 'wal_1',
          label: 'ethereum',
          body: { balances: [{ currency: 'USDC', amount: '1250.50' }] },
        },
        { walletId: 'wal_2', body: { data: { available: '0.10', currency: 'USD' } } },
        { walletId: 'wal_3', label: 'polygon', error },
        { walletId: 'wal_4', body: { wallet_id: 'wal_4', balances: [] } },
        { walletId: 'wal_5' },
      ],
      { total: 5 },
    );
    expectValidMessage(message);
    const texts = sections(message).map((block) => JSON.stringify(block));
    expect(texts).toHaveLength(5);
    expect(texts[0]).toContain('*ethereum* · `wal_1`\\n1,250.50 USDC');
    expect(texts[1]).toContain('available: 0.10 USD');
    expect(texts[2]).toContain('Could not read this balance: The Payments API failed');
    expect(texts[2]).toContain('request id req_9');
    expect(texts[3]).toContain('balances: none');
    expect(texts[4]).toContain('empty reply');
    expect(message.text).toBe('Wallet balances: 5 wallets');
  });

  it('says "showing N of M" when fewer wallets were read than exist', () => {
    const message = renderAllBalances(
      [{ walletId: 'wal_1', body: { amount: '1', currency: 'USDC' } }],
      {
        total: 80,
      },
    );
    expectValidMessage(message);
    expect(message.text).toContain('showing 1 of 80 wallets');
    expect(allText(message)).toContain('Showing 1 of 80: only 1 wallet balances were read.');
  });

  it('cuts a long run of wallets to Slack limits', () => {
    const results = Array.from({ length: 200 }, (_, index) => ({
      walletId: `wal_${index}`,
      label: `<!channel> wallet ${index}`,
      body: {
        balances: Array.from({ length: 12 }, (_, n) => ({ currency: `C${n}X`, amount: `${n}.50` })),
      },
    }));
    const message = renderAllBalances(results, { total: 200 });
    expectValidMessage(message);
    expect(message.text).toMatch(/showing \d+ of 200 wallets/);
  });

  it('says there is nothing to show when the provider lists no wallets', () => {
    const message = renderAllBalances([], { total: 0 });
    expectValidMessage(message);
    expect(allText(message)).toContain('The provider lists no wallets');
  });
});
