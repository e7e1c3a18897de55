import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { AccessControl, FRESH_MS } from '../../src/app/access.ts';
import { ApprovalWorkflow } from '../../src/app/approvals.ts';
import type { PaymentRequest, WriteIntent } from '../../src/domain/approval.ts';
import { DEFAULT_POLICY } from '../../src/domain/policy.ts';
import { parseRoleMembers } from '../../src/domain/roles.ts';
import {
  type PaymentsSandbox,
  startPaymentsSandbox,
} from '../../src/rehearsal/sandbox/payments-api.ts';
import { outcomeWords } from '../../src/slack/text/outcomes.ts';
import type { Database, Queryable } from '../../src/store/database.ts';
import { RequestStore } from '../../src/store/request-store.ts';
import { createPayoutCalls, sleep } from '../helpers/bot-process.ts';
import { engines, freshDatabase, type TestDatabase } from '../helpers/db.ts';
import { captureLogger, clientFor, EXAMPLE_CALLS } from '../helpers/payments.ts';
import { told } from '../helpers/refusals.ts';
import { testCipher, testSigner } from '../helpers/requests.ts';

/**
 * The claimed write's one call, and what may stop it: a process that waited past its lease
 * between the claim and the call, a database that fails right after the claim, an approver
 * removed before the claim, and the hold on the same payment written another way.
 */

const LEASE_MS = 1_500;
const PAYOUT = EXAMPLE_CALLS.createPayout.body as Record<string, string>;
const APPROVAL_CARD = { channelId: 'C0APPROVALS', messageTs: '1.000100' };

/** A click on the request's approval card, whose Approve button carries its fingerprint. */
function cardOf(request: PaymentRequest) {
  return { ...APPROVAL_CARD, fingerprint: request.fingerprint };
}

/**
 * The real store's database, with a gate on the first statement after the claim: it waits until
 * the test opens it, as a statement behind a DBA's `ALTER` or `VACUUM FULL` would — or fails.
 */
function gatedAfterClaim(db: Database) {
  let claimed = false;
  let gate: { open: () => void; fail?: Error; reached: Promise<void> } | undefined;
  let reached: () => void = () => {};
  const gatedQuery =
    (target: Queryable): Queryable['query'] =>
    async (sql, params) => {
      if (claimed && gate) {
        const current = gate;
        gate = undefined;
        reached();
        if (current.fail) throw current.fail;
        await new Promise<void>((resolve) => {
          current.open = resolve;
        });
      }
      const rows = await target.query(sql, params);
      if (sql.includes('as claimed_updated_at'))
        claimed = (rows[0] as { claimed_updated_at: unknown })?.claimed_updated_at != null;
      return rows as never;
    };
  const gated: Database = {
    ...db,
    query: gatedQuery(db),
    transaction: (work) => db.transaction((tx) => work({ ...tx, query: gatedQuery(tx) })),
  };
  return {
    db: gated,
    /** The next statement after the claim waits for `open()`, or fails with `fail`. */
    hold(fail?: Error) {
      const next = {
        open: () => {},
        fail,
        reached: new Promise<void>((resolve) => {
          reached = resolve;
        }),
      };
      gate = next;
      return { reached: next.reached, open: () => next.open() };
    },
  };
}

describe.each(engines())('the claimed write on %s', (engine) => {
  let database: TestDatabase;
  let sandbox: PaymentsSandbox;
  let gate: ReturnType<typeof gatedAfterClaim>;
  let approverGroup: string[];
  /** The access cache's clock: a membership change is seen once a fresh answer is due. */
  let clockMs: number;
  function changeApprovers(members: string[]) {
    approverGroup = members;
    clockMs += FRESH_MS;
  }

  beforeEach(async () => {
    [database, sandbox] = await Promise.all([freshDatabase(engine), startPaymentsSandbox()]);
    gate = gatedAfterClaim(database.db);
    approverGroup = ['U0BOB', 'U0CAROL'];
    clockMs = 0;
  });
  afterEach(async () => {
    await Promise.all([database.drop(), sandbox.close()]);
  });

  function workflow(requiredApprovals = 1) {
    const store = new RequestStore(gate.db, testCipher);
    const flow = new ApprovalWorkflow({
      store,
      client: clientFor(sandbox.url, { writeTimeoutMs: 1_000, readTimeoutMs: 1_000 }),
      signer: testSigner,
      preflight: 'warn',
      keyScopes: ['read', 'payments:write'],
      policy: { ...DEFAULT_POLICY, defaultApprovals: requiredApprovals },
      access: new AccessControl({ members: async () => approverGroup }, { now: () => clockMs }),
      roles: {
        requesters: parseRoleMembers('U0ALICE', 'requester').members,
        approvers: parseRoleMembers('S0APPROVERS', 'approver').members,
      },
      instanceId: 'fence-test',
      leaseMs: LEASE_MS,
      logger: captureLogger('silent').logger,
      outcomeWords: outcomeWords('/pay'),
    });
    return { flow, store };
  }

  async function requested(flow: ApprovalWorkflow, fields: Record<string, string> = PAYOUT) {
    const intent: WriteIntent = { operationId: 'createPayout', path: {}, fields };
    const result = await flow.request(intent, 'U0ALICE', 'C0PAYOPS');
    if (result.kind !== 'created') throw new Error(`not created: ${result.kind}`);
    await database.db.query(
      'update payment_requests set channel_id = $2, message_ts = $3 where id = $1',
      [result.request.id, APPROVAL_CARD.channelId, APPROVAL_CARD.messageTs],
    );
    return result.request;
  }

  /** The same payout requested again: `created`, or `held` while the first may have paid. */
  async function requestAgain(flow: ApprovalWorkflow) {
    const intent: WriteIntent = { operationId: 'createPayout', path: {}, fields: PAYOUT };
    return (await flow.request(intent, 'U0ALICE', 'C0PAYOPS')).kind;
  }

  it('a process that waited past its lease after the claim sends nothing, and the sweep knows it', async () => {
    const { flow, store } = workflow();
    const request = await requested(flow);
    const held = gate.hold();
    const approving = flow.approve(request.id, 'U0BOB', cardOf(request));
    await held.reached;
    // Meanwhile, the lease runs out and another replica's sweep looks at it.
    await sleep(LEASE_MS + 200);
    await flow.sweep();
    expect((await store.get(request.id))?.status).toBe('failed');
    held.open();
    const result = await approving;
    expect(result).toMatchObject({ kind: 'executed' });
    expect(createPayoutCalls(sandbox)).toEqual([]);
    const after = await store.get(request.id);
    expect(after?.status).toBe('failed');
    expect(after?.outcome?.message).toMatch(/never sent/);
    // Known not sent: the same payout may be requested again at once.
    expect(await requestAgain(flow)).toBe('created');
  });

  it('a database error right after the claim is recorded as not sent, and holds nothing', async () => {
    const { flow, store } = workflow();
    const request = await requested(flow);
    gate.hold(new Error('connection terminated unexpectedly'));
    const result = await flow.approve(request.id, 'U0BOB', cardOf(request));
    expect(result).toMatchObject({ kind: 'executed', request: { status: 'failed' } });
    expect(createPayoutCalls(sandbox)).toEqual([]);
    const after = await store.get(request.id);
    expect(after?.outcome?.message).toMatch(/nothing was sent/);
    expect(await requestAgain(flow)).toBe('created');
  });

  it('an approval given by someone removed from the approvers since does not count at the claim', async () => {
    const { flow, store } = workflow(2);
    const request = await requested(flow);
    expect((await flow.approve(request.id, 'U0BOB', cardOf(request))).kind).toBe('recorded');
    changeApprovers(['U0CAROL', 'U0DAVE']);
    expect((await flow.approve(request.id, 'U0CAROL', cardOf(request))).kind).toBe('recorded');
    expect((await store.get(request.id))?.status).toBe('pending');
    expect(createPayoutCalls(sandbox)).toEqual([]);
    expect((await flow.approve(request.id, 'U0DAVE', cardOf(request))).kind).toBe('executed');
    expect(createPayoutCalls(sandbox)).toHaveLength(1);
  });

  it('an approver removed within the cached minute cannot send it: the completing click asks Slack again', async () => {
    const { flow, store } = workflow();
    const request = await requested(flow);
    expect((await flow.canApprove('U0BOB')).allowed).toBe(true);
    changeApprovers(['U0CAROL']);
    expect((await flow.canApprove('U0BOB')).allowed).toBe(true); // still cached
    expect(told(await flow.approve(request.id, 'U0BOB', cardOf(request)))).toMatchObject({
      kind: 'refused',
      reason: `You are no longer an approver, so your approval of #${request.id} was not counted.`,
    });
    expect(await store.get(request.id)).toMatchObject({ status: 'pending', approvals: [] });
    expect(createPayoutCalls(sandbox)).toEqual([]);
    expect((await flow.approve(request.id, 'U0CAROL', cardOf(request))).kind).toBe('executed');
  });

  it('an unknown outcome a read found cannot be resolved as not executed; as executed it can', async () => {
    const { flow, store } = workflow();
    const request = await requested(flow);
    sandbox.addFault({ kind: 'execute_then_drop', operationId: 'createPayout', times: 1 });
    await flow.approve(request.id, 'U0BOB', cardOf(request));
    const found = await store.get(request.id);
    expect(found).toMatchObject({ status: 'unknown', reconciliation: { result: 'found' } });

    const refused = await flow.resolve(request.id, 'U0CAROL', false, 'not in the dashboard');
    expect(refused).toMatchObject({ kind: 'refused' });
    expect(told(refused).reason).toContain(
      `payops found #${request.id} at the provider (its record is on the card and in \`/pay request ${request.id}\`)`,
    );
    expect((await store.get(request.id))?.reconciliation).toEqual(found?.reconciliation);
    expect((await flow.resolve(request.id, 'U0CAROL', true, 'seen')).kind).toBe('done');
  });

  it('holds the same payment written another way while the first is unsettled, and sends the bytes approved', async () => {
    const { flow, store } = workflow();
    const first = await requested(flow, { ...PAYOUT, amount: '5.50' });
    sandbox.addFault({ kind: 'reset', operationId: 'createPayout' });
    await flow.approve(first.id, 'U0BOB', cardOf(first));
    expect((await store.get(first.id))?.status).toBe('unknown');
    sandbox.clearFaults();
    const again = await flow.request(
      {
        operationId: 'createPayout',
        path: {},
        fields: { ...PAYOUT, amount: '5.500', currency: PAYOUT.currency?.toLowerCase() ?? '' },
      },
      'U0ALICE',
      'C0PAYOPS',
    );
    expect(again).toMatchObject({ kind: 'held', twin: { id: first.id, status: 'unknown' } });
    const other = await requested(flow, { ...PAYOUT, amount: '5.51' });
    await flow.approve(other.id, 'U0BOB', cardOf(other));
    const sent = createPayoutCalls(sandbox).at(-1);
    expect(JSON.parse(sent?.body ?? '{}').amount).toBe('5.51');
  });
});
