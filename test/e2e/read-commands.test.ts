import { createServer, request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type Rehearsal, startRehearsal } from '../../src/rehearsal/rehearsal.ts';
import {
  SANDBOX_IDS,
  SANDBOX_KEY,
  SANDBOX_KEYS,
} from '../../src/rehearsal/sandbox/payments-api.ts';
import { ask } from '../helpers/slack.ts';

/** Keys the tests may change while the bot runs (revoked, put under review, scopes cut). */
const keys = structuredClone(SANDBOX_KEYS);
let rehearsal: Rehearsal;

beforeAll(async () => {
  rehearsal = await startRehearsal({ sandbox: { keys } });
});
afterAll(() => rehearsal.close());
afterEach(() => {
  rehearsal.sandbox.clearFaults();
  rehearsal.sandbox.setLatency(0);
  Object.assign(keys, structuredClone(SANDBOX_KEYS));
});

const { wallet, recipient } = SANDBOX_IDS;

function providerCalls(): number {
  return rehearsal.sandbox.requests.length;
}

describe('every read command answers through the response_url, ephemerally', () => {
  it.each([
    ['help', ['/pay wallets', '/pay fx', '/pay balance [walletId]']],
    ['health', ['reachability only']],
    ['me', ['Acme Treasury Ltd', 'cus_acme01', 'payments:write']],
    ['wallets', [wallet.ethereumOps, wallet.solanaTreasury]],
    ['wallets --sync', [wallet.ethereumOps]],
    [`balance ${wallet.ethereumOps}`, ['1,250.50 USDC']],
    ['balance', [wallet.ethereumOps, wallet.solanaTreasury, '98,000.00 USDC']],
    [`history ${wallet.ethereumOps}`, ['USDC']],
    ['deposit-accounts', [SANDBOX_IDS.depositAccount.activeUsd]],
    ['deposit-accounts --sync', [SANDBOX_IDS.depositAccount.activeUsd]],
    ['recipients', [recipient.usSupplier]],
    [`recipient ${recipient.usSupplier}`, [recipient.usSupplier]],
    ['deposits', ['USDC']],
    ['deposits --sync', ['USDC']],
    ['transfers --limit 2', ['tr_']],
    ['transfers --sync', ['tr_']],
    ['payouts', ['po_']],
    ['fx', ['EUR']],
    ['fx USD EUR 100', ['indicative', 'EUR']],
    ['corridors', [SANDBOX_IDS.corridor.usdAch]],
  ])('/pay %s', async (text, expected) => {
    const answer = await ask(rehearsal, text);
    expect(answer.body.response_type).toBe('ephemeral');
    expect(Array.isArray(answer.body.blocks)).toBe(true);
    for (const fragment of expected) expect(answer.shown).toContain(fragment);
    expect(answer.shown).not.toMatch(/undefined|\[object Object\]/);
  });

  it('never shows a full account number', async () => {
    const answer = await ask(rehearsal, `recipient ${recipient.usSupplier}`);
    expect(answer.shown).toContain('••••');
    const deposit = await ask(rehearsal, 'deposit-accounts');
    for (const shown of [answer.shown, deposit.shown]) {
      // Date tokens carry Unix seconds and request ids random hex; any other long run of
      // digits would be an account number.
      expect(shown.replace(/<!date\^\d+|req_\w+/g, '')).not.toMatch(/\d{8,}/);
    }
  });
});

describe('the spec’s list options', () => {
  it('payouts take no --sync (the spec offers it for the other lists only), and nothing is called', async () => {
    const before = rehearsal.sandbox.requests.length;
    const answer = await ask(rehearsal, 'payouts --sync');
    expect(answer.shown).toMatch(/--sync/);
    expect(rehearsal.sandbox.requests.length).toBe(before);
  });
});

describe('scopes', () => {
  it('a command whose --sync needs a scope the key lacks names it and calls nobody', async () => {
    const readOnly = await startRehearsal({ env: { PAYMENTS_API_KEY: SANDBOX_KEY.read } });
    try {
      const before = readOnly.sandbox.requests.length;
      const answer = await ask(readOnly, 'wallets --sync');
      expect(answer.shown).toContain('resources:write');
      expect(readOnly.sandbox.requests.length).toBe(before);
      const help = await ask(readOnly, 'help');
      expect(help.shown).toContain('--sync needs scope resources:write');
    } finally {
      await readOnly.close();
    }
  });
});

describe('each error of the spec gets its own plain message', () => {
  it('a key revoked after start-up: invalid or revoked, stop', async () => {
    (keys[SANDBOX_KEY.full] as { revoked?: boolean }).revoked = true;
    const answer = await ask(rehearsal, 'wallets');
    expect(answer.shown).toMatch(/invalid or revoked/);
    expect(answer.shown).toMatch(/req_/);
  });

  it('a key put under scope review: an admin must finish the review', async () => {
    (keys[SANDBOX_KEY.full] as { legacy?: boolean }).legacy = true;
    const answer = await ask(rehearsal, 'corridors');
    expect(answer.shown).toMatch(/finish the key's review/);
  });

  it('scopes removed from the key at the provider: the provider refusal is explained', async () => {
    (keys[SANDBOX_KEY.full] as { scopes: string[] }).scopes = [];
    const answer = await ask(rehearsal, 'deposits');
    expect(answer.shown).toMatch(/does not have the permission/);
    expect(answer.shown).toContain('INSUFFICIENT_API_KEY_SCOPE');
  });

  it('a proxy that strips the key: the provider says a key is required', async () => {
    const proxy = await keyStrippingProxy(rehearsal.sandbox.port);
    const behindProxy = await startRehearsal({ env: { PAYMENTS_BASE_URL: proxy.url } });
    try {
      proxy.stripKey = true;
      const answer = await ask(behindProxy, 'wallets');
      expect(answer.shown).toMatch(/no API key reached it/);
    } finally {
      await behindProxy.close();
      proxy.server.close();
    }
  });

  it('an unknown id: the provider refusal with its code and request id', async () => {
    const answer = await ask(rehearsal, 'recipient ea_does_not_exist');
    expect(answer.shown).toMatch(/refused the request \(404\)/);
    expect(answer.shown).toMatch(/req_/);
  });
});

describe('a slow or failing provider', () => {
  it('a provider taking 4 s: the ack is immediate and the answer still arrives', async () => {
    rehearsal.sandbox.setLatency(4_000);
    const answer = await ask(rehearsal, 'wallets', { timeoutMs: 15_000 });
    expect(answer.status).toBe(200);
    expect(answer.ackMs).toBeLessThan(1_000);
    expect(answer.shown).toContain(wallet.ethereumOps);
  }, 20_000);

  it('a provider that is down: a clear answer, never a Slack timeout', async () => {
    rehearsal.sandbox.addFault({ kind: 'reset' });
    const answer = await ask(rehearsal, 'payouts');
    expect(answer.ackMs).toBeLessThan(1_000);
    expect(answer.shown).toMatch(/could not reach the Payments API/);
  });

  it('a provider failing with 503: says so, with the request id', async () => {
    rehearsal.sandbox.addFault({ kind: 'status', status: 503 });
    const answer = await ask(rehearsal, 'corridors');
    expect(answer.shown).toMatch(/internal error \(503\)/);
    expect(answer.shown).toMatch(/req_/);
  });
});

describe('forged and stale requests', () => {
  it.each(['bad-signature', 'stale-timestamp', 'missing-headers'] as const)(
    'a request with %s is refused with 401 and does nothing',
    async (forge) => {
      const before = providerCalls();
      const responsesBefore = rehearsal.slack.responses.length;
      const sent = await rehearsal.driver.slashCommand(
        { text: 'wallets', userId: 'U0ALICE', channelId: 'C0PAYOPS' },
        { forge },
      );
      expect(sent.status).toBe(401);
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect(providerCalls()).toBe(before);
      expect(rehearsal.slack.responses.length).toBe(responsesBefore);
    },
  );
});

describe('access', () => {
  it('a reader listed by user ID is answered', async () => {
    expect((await ask(rehearsal, 'me', { userId: 'U0DAVE' })).shown).toContain('cus_acme01');
  });

  it('a member of a reader user group is answered', async () => {
    expect((await ask(rehearsal, 'me', { userId: 'U0BOB' })).shown).toContain('cus_acme01');
  });

  it('a non-reader is refused politely, told who administers access, and nothing is called', async () => {
    const before = providerCalls();
    const answer = await ask(rehearsal, 'wallets', { userId: 'U0ERIN' });
    expect(answer.shown).toContain('#payops-admins');
    expect(answer.shown).not.toContain(wallet.ethereumOps);
    expect(providerCalls()).toBe(before);
  });

  it('someone with no role gets one refusal, naming nobody, whatever they type', async () => {
    const plain = (await ask(rehearsal, 'help', { userId: 'U0ERIN' })).shown;
    expect(plain).toContain('not on the list of people who may use payops');
    const before = providerCalls();
    const typed = ['wallets', 'payout amount=10.00', 'payout', 'requests', 'freeze now'];
    for (const text of typed) {
      expect((await ask(rehearsal, text, { userId: 'U0ERIN' })).shown).toBe(plain);
    }
    expect(plain).not.toMatch(/<@U0|subteam/);
    expect(providerCalls()).toBe(before);
  });

  it('when Slack cannot say who is in a group, access is denied (fail closed)', async () => {
    const isolated = await startRehearsal();
    try {
      isolated.slack.failNext('usergroups.users.list', 'internal_error', { times: 5 });
      const answer = await ask(isolated, 'wallets', { userId: 'U0CAROL' });
      expect(answer.shown).toMatch(/could not check your user-group membership/);
      expect(answer.shown).not.toContain(wallet.ethereumOps);
    } finally {
      await isolated.close();
    }
  });

  it('outside PAYOPS_CHANNELS the bot says where it works', async () => {
    const restricted = await startRehearsal({ env: { PAYOPS_CHANNELS: 'C0PAYOPS' } });
    try {
      const answer = await ask(restricted, 'wallets', { channelId: 'C0GENERAL' });
      expect(answer.shown).toContain('<#C0PAYOPS>');
      expect(answer.shown).not.toContain(wallet.ethereumOps);
      expect((await ask(restricted, 'me')).shown).toContain('cus_acme01');
    } finally {
      await restricted.close();
    }
  });

  it('an unknown word gets the closest command and a pointer to help', async () => {
    const answer = await ask(rehearsal, 'walets');
    expect(answer.shown).toContain('wallets');
    expect(answer.shown).toContain('/pay help');
  });
});

/** A real HTTP proxy in front of the sandbox that can start dropping the X-Api-Key header. */
async function keyStrippingProxy(targetPort: number) {
  const proxy = { stripKey: false, url: '', server: undefined as unknown as Server };
  proxy.server = createServer((incoming, outgoing) => {
    const headers = { ...incoming.headers };
    if (proxy.stripKey) delete headers['x-api-key'];
    const forwarded = httpRequest(
      { host: '127.0.0.1', port: targetPort, path: incoming.url, method: incoming.method, headers },
      (reply) => {
        outgoing.writeHead(reply.statusCode ?? 502, reply.headers);
        reply.pipe(outgoing);
      },
    );
    incoming.pipe(forwarded);
  });
  await new Promise<void>((resolve) => proxy.server.listen(0, '127.0.0.1', resolve));
  proxy.url = `http://127.0.0.1:${(proxy.server.address() as AddressInfo).port}/v1`;
  return proxy;
}

describe('the HTTP endpoint', () => {
  const base = () => rehearsal.botUrl.replace('/slack/events', '');

  it('answers /healthz while alive and /readyz with each dependency', async () => {
    expect((await fetch(`${base()}/healthz`)).status).toBe(200);
    const ready = await fetch(`${base()}/readyz`);
    expect(ready.status).toBe(200);
    expect(await ready.json()).toEqual({
      ready: true,
      checks: { store: true, provider: true },
    });
  });

  it('reports not ready when the provider is unreachable', async () => {
    const isolated = await startRehearsal();
    try {
      isolated.sandbox.addFault({ kind: 'reset', operationId: 'health' });
      const ready = await fetch(`${isolated.botUrl.replace('/slack/events', '')}/readyz`);
      expect(ready.status).toBe(503);
      expect(((await ready.json()) as { checks: { provider: boolean } }).checks.provider).toBe(
        false,
      );
    } finally {
      await isolated.close();
    }
  });

  it('resolves its Slack identity once at start-up, never inside an ack', async () => {
    const before = rehearsal.slack.callsTo('auth.test').length;
    for (let index = 0; index < 5; index++) await ask(rehearsal, 'health');
    expect(rehearsal.slack.callsTo('auth.test').length).toBe(before);
    expect(before).toBe(1);
  });
});
