import { readdir, readFile } from 'node:fs/promises';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  ANSI_STYLE,
  blocksToText,
  messageToText,
  mrkdwnToText,
  type NameDirectory,
  viewToText,
} from '../../../src/rehearsal/demo/to-text.ts';

const directory: NameDirectory = {
  userName: (id) => ({ U0ALICE: 'alice', U0BOB: 'bob' })[id],
  channelName: (id) => ({ C0PAYOPS: 'payops' })[id],
  groupHandle: (id) => ({ S0APPROVERS: 'payops-approvers' })[id],
};

const plain = (text: string) => ({ type: 'plain_text', text });
const mrkdwn = (text: string) => ({ type: 'mrkdwn', text });
const button = (actionId: string, label: string, extra: Record<string, unknown> = {}) => ({
  type: 'button',
  action_id: actionId,
  text: plain(label),
  ...extra,
});

const lines = (blocks: unknown[]) => blocksToText(blocks, { directory }).lines;

describe('blocks become readable lines', () => {
  it('a header is its text underlined to the same length', () => {
    expect(lines([{ type: 'header', text: plain('Wallets') }])).toEqual(['Wallets', '=======']);
  });

  it('a section shows its mrkdwn without markers, one line per line of text', () => {
    expect(
      lines([{ type: 'section', text: mrkdwn('*Balance* of `wal_acme_eth_ops`\n1250.50 USDC') }]),
    ).toEqual(['Balance of wal_acme_eth_ops', '1250.50 USDC']);
  });

  it('a section field `*Label*\\nvalue` is one indented `Label: value` line; others stay as they are', () => {
    expect(
      lines([
        {
          type: 'section',
          fields: [mrkdwn('*Chain*\nethereum'), mrkdwn('*Status:*\nactive'), plain('USDC')],
        },
      ]),
    ).toEqual(['  Chain: ethereum', '  Status: active', '  USDC']);
  });

  it('a fact table row, a bold name beside a plain-text value, is one `Name: value` line, the value as is', () => {
    expect(
      lines([
        {
          type: 'section',
          fields: [
            mrkdwn('*Beneficiary* _(Cyrillic letters)_'),
            plain('*Иван* _Петров_'),
            mrkdwn('*Wallet*'),
            plain('wal`1'),
          ],
        },
      ]),
    ).toEqual(['  Beneficiary (Cyrillic letters): *Иван* _Петров_', '  Wallet: wal`1']);
  });

  it('a context block is one line of its texts; its icon images are left out', () => {
    expect(
      lines([
        {
          type: 'context',
          elements: [
            { type: 'image', image_url: 'https://x.test/i.png', alt_text: 'icon' },
            mrkdwn('Request id `req_1`'),
            plain('cached'),
          ],
        },
      ]),
    ).toEqual(['Request id req_1  cached']);
  });

  it('a divider is a rule', () => {
    expect(lines([{ type: 'divider' }])).toEqual(['─'.repeat(40)]);
  });

  it('an image block is its alt text', () => {
    expect(
      lines([{ type: 'image', image_url: 'https://x.test/c.png', alt_text: 'chart of balances' }]),
    ).toEqual(['[image: chart of balances]']);
  });

  it('a block it does not know shows its text, or else its type, never its JSON', () => {
    expect(
      lines([
        { type: 'markdown', text: 'plain words' },
        { type: 'rich_text', elements: [] },
      ]),
    ).toEqual(['plain words', '[rich_text block]']);
  });

  it('a message without blocks shows its text', () => {
    expect(messageToText({ text: 'Approved by <@U0BOB>' }, { directory }).lines).toEqual([
      'Approved by @bob',
    ]);
  });

  it('a message with blocks shows the blocks, not the notification text', () => {
    const shown = messageToText({
      text: 'fallback',
      blocks: [{ type: 'section', text: plain('body') }],
    });
    expect(shown.lines).toEqual(['body']);
  });
});

describe('mrkdwn made readable', () => {
  it('mentions show names from the directory: #channel, @person, @group handle', () => {
    expect(
      mrkdwnToText('<@U0ALICE> asks <!subteam^S0APPROVERS> in <#C0PAYOPS>', { directory }),
    ).toBe('@alice asks @payops-approvers in #payops');
  });

  it("a mention the directory does not know shows Slack's label, else the bare id", () => {
    expect(
      mrkdwnToText('<@U0ZED|zed> <#C0OTHER|other> <!subteam^S0X|@ops> <@U0NOBODY>', { directory }),
    ).toBe('@zed #other @ops @U0NOBODY');
  });

  it('special mentions read @here, @channel, @everyone', () => {
    expect(mrkdwnToText('<!here> <!channel> <!everyone>')).toBe('@here @channel @everyone');
  });

  it('a link shows its label then its address; a bare link shows the address', () => {
    expect(mrkdwnToText('see <https://x.test/a_b_c|the docs> or <https://y.test>')).toBe(
      'see the docs (https://x.test/a_b_c) or https://y.test',
    );
  });

  // 2025-01-14T09:12:44Z, read on the 15th in Paris (UTC+1).
  const clock = { now: () => Date.parse('2025-01-15T12:00:00Z'), timeZone: 'Europe/Paris' };

  it("a date token reads in the reader's time zone, by its format; a malformed one shows its fallback", () => {
    const token = (format: string) => `<!date^1736845964^${format}|2025-01-14T09:12:44Z>`;
    expect(mrkdwnToText(`at ${token('{date_short_pretty} {time_secs}')}`, { clock })).toBe(
      'at yesterday 10:12:44',
    );
    expect(mrkdwnToText(token('{date_long} {time}'), { clock })).toBe(
      'Tuesday 14 January 2025 10:12',
    );
    expect(mrkdwnToText(token('{date_num} · {ago}'), { clock })).toBe('2025-01-14 · 1 day ago');
    expect(mrkdwnToText('<!date^soon^{time}|whenever>', { clock })).toBe('whenever');
  });

  it('an ISO time in text reads as local time, except inside code', () => {
    expect(
      mrkdwnToText(
        'sent 2025-01-15T11:59:00.120Z, expires 2025-01-16T08:00:00+01:00 `2025-01-14T09:12:44Z`',
        {
          clock,
        },
      ),
    ).toBe('sent today 12:59:00, expires tomorrow 08:00:00 2025-01-14T09:12:44Z');
  });

  it('the emoji payops uses are drawn; an unknown code and a time stay as typed', () => {
    expect(
      mrkdwnToText(':white_check_mark: done :warning: :octagonal_sign: :party_parrot: 10:30:00'),
    ).toBe('✅ done ⚠️ 🛑 :party_parrot: 10:30:00');
    const emoji = (text: string, extra = {}) =>
      blocksToText([{ type: 'header', text: { ...plain(text), ...extra } }]).lines[0];
    expect(emoji(':x: failed')).toBe('❌ failed');
    expect(emoji(':x: as typed', { emoji: false })).toBe(':x: as typed');
  });

  it("Slack's escapes are undone after mentions are read, so escaped text never turns into one", () => {
    expect(mrkdwnToText('a &lt;@U0ALICE&gt; &amp; b', { directory })).toBe('a <@U0ALICE> & b');
  });

  it('underscores inside identifiers are not italics; `_words_` lose their markers', () => {
    expect(mrkdwnToText('wal_acme_eth_ops is _indicative_ only')).toBe(
      'wal_acme_eth_ops is indicative only',
    );
  });

  it('markers inside code are kept as typed', () => {
    expect(mrkdwnToText('`*not bold*` and ```\n_raw_ <@U0ALICE>\n```', { directory })).toBe(
      '*not bold* and _raw_ <@U0ALICE>',
    );
  });

  it('a lone asterisk or one inside a word is not emphasis', () => {
    expect(mrkdwnToText('2*3*4 and * alone')).toBe('2*3*4 and * alone');
  });

  it('on a terminal bold, code and context are styled with ANSI attributes', () => {
    expect(mrkdwnToText('*a* `b`', { style: ANSI_STYLE })).toBe(
      '\x1b[1ma\x1b[22m \x1b[36mb\x1b[39m',
    );
    expect(
      blocksToText([{ type: 'context', elements: [plain('req')] }], { style: ANSI_STYLE }).lines,
    ).toEqual(['\x1b[2mreq\x1b[22m']);
  });
});

describe('buttons are numbered so they can be clicked', () => {
  const approval = [
    { type: 'section', text: mrkdwn('Pay *10.00 USDC*?'), accessory: button('details', 'Details') },
    {
      type: 'actions',
      block_id: 'decision',
      elements: [button('approve', 'Approve', { style: 'primary' }), button('reject', 'Reject')],
    },
  ];

  it('buttons are listed `[1] Approve  [2] Reject`, numbered in the order they appear', () => {
    const shown = blocksToText(approval);
    expect(shown.lines).toEqual(['Pay 10.00 USDC?', '  [1] Details', '[2] Approve  [3] Reject']);
    expect(shown.buttons).toEqual([
      { ref: '1', label: 'Details', actionId: 'details', blockId: undefined, value: undefined },
      { ref: '2', label: 'Approve', actionId: 'approve', blockId: 'decision', value: undefined },
      { ref: '3', label: 'Reject', actionId: 'reject', blockId: 'decision', value: undefined },
    ]);
  });

  it('buttonRef names each button, from what a click must send back', () => {
    const shown = blocksToText(approval, {
      buttonRef: ({ actionId, blockId }) => `${blockId ?? 'top'}:${actionId}`,
    });
    expect(shown.buttons.map((b) => b.ref)).toEqual([
      'top:details',
      'decision:approve',
      'decision:reject',
    ]);
    expect(shown.lines).toContain('[decision:approve] Approve  [decision:reject] Reject');
  });

  it('a link button shows its address; a button without an action id gets no number', () => {
    const shown = blocksToText([
      {
        type: 'actions',
        elements: [
          button('open', 'Dashboard', { url: 'https://x.test/d' }),
          { type: 'button', text: plain('Inert') },
        ],
      },
    ]);
    expect(shown.lines).toEqual(['[1] Dashboard (https://x.test/d)  [Inert]']);
    expect(shown.buttons).toHaveLength(1);
  });

  it('other interactive elements say what they ask for', () => {
    expect(
      lines([
        {
          type: 'actions',
          elements: [
            {
              type: 'static_select',
              action_id: 'currency',
              options: [
                { text: plain('USDC'), value: 'USDC' },
                { text: plain('USDT'), value: 'USDT' },
              ],
            },
            { type: 'users_select', action_id: 'who', placeholder: plain('Pick an approver') },
          ],
        },
      ]),
    ).toEqual(['[one of: USDC | USDT]  [users select: Pick an approver]']);
  });
});

describe('modals and input blocks are field lists', () => {
  it('inputName adds the name a field is filled in by, unless its label holds it already', () => {
    const shown = viewToText(
      {
        type: 'modal',
        blocks: [
          {
            type: 'input',
            label: plain('Why?'),
            element: { type: 'plain_text_input', action_id: 'reason' },
          },
          {
            type: 'input',
            label: plain('Wallet (wallet_id)'),
            element: { type: 'plain_text_input', action_id: 'wallet_id' },
          },
        ],
      },
      { inputName: ({ actionId }) => actionId },
    );
    expect(shown.lines).toEqual(['• Why? (reason): ____', '• Wallet (wallet_id): ____']);
  });

  it('a modal shows its title, one line per input and its submit/close labels', () => {
    const shown = viewToText({
      type: 'modal',
      title: plain('New transfer'),
      submit: plain('Request'),
      close: plain('Cancel'),
      blocks: [
        {
          type: 'input',
          label: plain('Amount'),
          hint: plain('Two decimals'),
          element: { type: 'plain_text_input', placeholder: plain('e.g. 12.50') },
        },
        {
          type: 'input',
          label: plain('Currency'),
          optional: true,
          element: {
            type: 'radio_buttons',
            options: [
              { text: plain('USDC'), value: 'USDC' },
              { text: plain('USDT'), value: 'USDT' },
            ],
            initial_option: { text: plain('USDC'), value: 'USDC' },
          },
        },
        {
          type: 'input',
          label: plain('Note'),
          element: { type: 'plain_text_input', initial_value: 'rent' },
        },
        { type: 'input', label: plain('On'), element: { type: 'datepicker' } },
      ],
    });
    expect(shown.lines).toEqual([
      'New transfer',
      '============',
      '• Amount: ____ (e.g. 12.50)',
      '  Two decimals',
      '• Currency (optional): one of: USDC | USDT, chosen: USDC',
      '• Note: rent',
      '• On: YYYY-MM-DD',
      'Submit: Request  ·  Close: Cancel',
    ]);
  });
});

describe('JSON that is not well-formed Block Kit', () => {
  it('missing or mistyped fields render as nothing, never `undefined` or `[object Object]`', () => {
    const shown = blocksToText([
      null,
      42,
      'text',
      [],
      { type: 'header' },
      { type: 'header', text: { type: 'plain_text', text: { nested: true } } },
      { type: 'section', text: 7, fields: 'no', accessory: { type: 'button', text: null } },
      { type: 'context', elements: [null, { type: 'mrkdwn' }, { type: 'plain_text', text: 1 }] },
      { type: 'actions', elements: [{}, { type: 'static_select', options: [null, {}] }] },
      { type: 'input', label: {}, element: null },
      { type: 'image' },
      { type: 'mystery', text: { type: 'mrkdwn' } },
    ]);
    const text = shown.lines.join('\n');
    expect(text).not.toMatch(/undefined|\[object Object\]|null|NaN/);
    expect(shown.lines).toEqual([
      '  [Button]',
      '[element]  [one of: ]',
      '• Input: ____',
      '[image]',
      '[mystery block]',
    ]);
  });

  it('holds for any JSON at all (property)', () => {
    const json = fc.jsonValue();
    const blockLike = fc.record(
      {
        type: fc.constantFrom(
          'header',
          'section',
          'context',
          'divider',
          'actions',
          'input',
          'image',
          'x',
        ),
        text: json,
        fields: json,
        elements: fc.oneof(
          json,
          fc.array(
            fc.record({
              type: fc.constantFrom('button', 'image', 'mrkdwn'),
              text: json,
              action_id: json,
            }),
          ),
        ),
        accessory: json,
        element: json,
        label: json,
      },
      { requiredKeys: ['type'] },
    );
    fc.assert(
      fc.property(fc.array(fc.oneof(json, blockLike)), json, (blocks, view) => {
        const all = [...blocksToText(blocks).lines, ...viewToText(view).lines].join('\n');
        expect(all).not.toMatch(/undefined|\[object Object\]/);
      }),
    );
  });
});

describe('who uses the text rendering', () => {
  it('the console alone: no module outside src/rehearsal/demo imports it', async () => {
    const root = new URL('../../../src/', import.meta.url);
    const files = (await readdir(root, { recursive: true })).filter(
      (file) => file.endsWith('.ts') && !file.startsWith('rehearsal/demo/'),
    );
    const importers: string[] = [];
    for (const file of files) {
      const text = await readFile(new URL(file, root), 'utf8');
      if (/from '[^']*\/(to-text|local-text)\.ts'/.test(text)) importers.push(file);
    }
    expect(files.length).toBeGreaterThan(50);
    expect(importers).toEqual([]);
  });
});
