import type { AllMiddlewareArgs, SlackViewMiddlewareArgs, ViewSubmitAction } from '@slack/bolt';
import { describe, expect, it } from 'vitest';
import { requestCallback } from '../../../../src/slack/listeners/views/request.ts';
import { formatRequestForm } from '../../../../src/slack/private-metadata.ts';
import { fakeBolt } from '../../../fakes/bolt.ts';
import { approvalDeps, formSubmission, referenceIn } from '../../../helpers/listeners.ts';
import { testSigner } from '../../../helpers/requests.ts';
import { workflowOnFakes } from '../../../helpers/workflow.ts';

type RequestArgs = AllMiddlewareArgs & SlackViewMiddlewareArgs<ViewSubmitAction>;

/** A payout's fields as a requester fills them in. */
const PAYOUT: Record<string, string> = {
  wallet_id: 'wal_1',
  amount: '250.00',
  currency: 'USDC',
  beneficiary_name: 'Jane Roe',
  beneficiary_account: '000123456789',
  beneficiary_routing: '021000021',
  destination_type: 'ach',
};

/** The payout form, asked for in C0PAYOPS. */
const PAYOUT_FORM = formatRequestForm({
  operationId: 'createPayout',
  path: {},
  channelId: 'C0PAYOPS',
});

/** `userId` submitting the request form with `fields` typed in its inputs. */
async function submit(
  deps: ReturnType<typeof approvalDeps>,
  userId: string,
  fields: Record<string, string>,
  metadata = PAYOUT_FORM,
  bolt = fakeBolt(),
) {
  const values = Object.fromEntries(
    Object.entries(fields).map(([name, value]) => [
      name,
      { [name]: { type: 'plain_text_input', value } },
    ]),
  );
  const args = { ...bolt, ...formSubmission(userId, metadata, values) } as unknown as RequestArgs;
  await requestCallback(deps)(args);
  return bolt;
}

describe('requestCallback', () => {
  it('acks first, closing the form, and stores the request; its confirmation goes through the outbox', async () => {
    const { workflow, store, payments } = workflowOnFakes();
    const bolt = fakeBolt();
    const create = store.create.bind(store);
    store.create = (request) => {
      bolt.said.push('store.create');
      return create(request);
    };
    await submit(approvalDeps(workflow), 'U0BOB', PAYOUT, PAYOUT_FORM, bolt);
    expect(bolt.said).toEqual(['ack', 'store.create']);
    expect(bolt.acks).toEqual([undefined]);
    const [request] = [...store.requests.values()];
    expect(request).toMatchObject({ operationId: 'createPayout', requesterId: 'U0BOB' });
    expect(JSON.parse(request?.body ?? '{}')).toEqual(PAYOUT);
    expect(store.deliveries.of(request?.id ?? 0)).toEqual(['created']);
    expect(payments.count('createPayout')).toBe(0);
  });

  it('shows each mistake under its own field, stores nothing and sends nothing', async () => {
    const { workflow, store } = workflowOnFakes();
    const { beneficiary_name: _name, ...unnamed } = PAYOUT;
    const bolt = await submit(approvalDeps(workflow), 'U0BOB', { ...unnamed, amount: 'ten' });
    expect(bolt.said).toEqual(['ack']);
    const [ack] = bolt.acks as Array<{ response_action: string; errors: Record<string, string> }>;
    expect(ack?.response_action).toBe('errors');
    expect(Object.keys(ack?.errors ?? {}).sort()).toEqual(['amount', 'beneficiary_name']);
    expect(ack?.errors.amount).toContain('amount');
    expect(store.requests.size).toBe(0);
  });

  it('a required purpose left empty is shown under the purpose input; given, it is stored beside the body, not in it', async () => {
    const { workflow, store, payments } = workflowOnFakes();
    const deps = { ...approvalDeps(workflow), requirePurpose: new Set(['createPayout'] as const) };
    const refused = await submit(deps, 'U0BOB', PAYOUT);
    const [ack] = refused.acks as Array<{
      response_action: string;
      errors: Record<string, string>;
    }>;
    expect(ack?.response_action).toBe('errors');
    expect(Object.keys(ack?.errors ?? {})).toEqual(['purpose']);
    expect(ack?.errors.purpose).toContain('`/payments payout` needs a purpose');
    expect(store.requests.size).toBe(0);

    await submit(deps, 'U0BOB', { ...PAYOUT, purpose: 'Invoice 2291' });
    const [request] = [...store.requests.values()];
    expect(request?.purpose).toBe('Invoice 2291');
    expect(JSON.parse(request?.body ?? '{}')).toEqual(PAYOUT);
    // Sealed with its purpose: the seal the workflow checks at each approval holds.
    expect(request?.seal).toBe(request && testSigner.requestSeal(request));
    expect(payments.count('createPayout')).toBe(0);
  });

  it('refuses a form whose metadata payops did not write, and stores nothing', async () => {
    const { workflow, store } = workflowOnFakes();
    const deps = approvalDeps(workflow);
    const forged = [
      'not json',
      JSON.stringify({ operationId: 'getWalletBalance', path: {} }),
      JSON.stringify({ operationId: 'createPayout', path: { walletId: 'wal_1' } }),
    ];
    for (const metadata of forged) {
      const bolt = await submit(deps, 'U0BOB', PAYOUT, metadata);
      const [ack] = bolt.acks as Array<{ response_action: string; view: { blocks: unknown[] } }>;
      expect(ack?.response_action).toBe('update');
      expect(JSON.stringify(ack?.view.blocks)).toContain(
        'payops could not read this form, so nothing was requested',
      );
    }
    expect(store.requests.size).toBe(0);
  });

  it('tells someone who may not request, alone in the channel they asked from, and stores nothing', async () => {
    const { workflow, store } = workflowOnFakes();
    const bolt = await submit(approvalDeps(workflow), 'U0CAROL', PAYOUT);
    expect(bolt.said).toEqual(['ack', 'chat.postEphemeral']);
    expect(bolt.posts[0]?.args).toMatchObject({ channel: 'C0PAYOPS', user: 'U0CAROL' });
    expect(bolt.posts[0]?.args.text).toContain('you may not request payments or other writes');
    expect(store.requests.size).toBe(0);
  });

  it('gives the requester a reference, also in the log, when storing fails inside payops', async () => {
    const { workflow, store } = workflowOnFakes();
    store.create = async () => {
      throw new Error('the database is gone');
    };
    const deps = approvalDeps(workflow);
    const bolt = await submit(deps, 'U0BOB', PAYOUT);
    expect(bolt.said).toEqual(['ack', 'chat.postEphemeral']);
    const text = bolt.posts[0]?.args.text as string;
    expect(text).toMatch(
      /^Your request could not be stored \(reference \w+\): nothing was created/,
    );
    expect(referenceIn(text, deps.lines).logged).toBe(true);
  });
});
