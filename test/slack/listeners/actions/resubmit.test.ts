import { describe, expect, it } from 'vitest';
import { VIEW } from '../../../../src/slack/interaction-ids.ts';
import { resubmitCallback } from '../../../../src/slack/listeners/actions/resubmit.ts';
import { parseRequestForm } from '../../../../src/slack/private-metadata.ts';
import { fakeBolt } from '../../../fakes/bolt.ts';
import {
  approvalDeps,
  type ButtonArgs,
  buttonClick,
  modalText,
  readsOn,
} from '../../../helpers/listeners.ts';
import { workflowOnFakes } from '../../../helpers/workflow.ts';

async function click(userId: string) {
  const { workflow, payments, requested } = workflowOnFakes();
  const request = await requested({ purpose: 'Invoice 2291' });
  const bolt = fakeBolt();
  const args = { ...bolt, ...buttonClick(userId, String(request.id)) } as unknown as ButtonArgs;
  const listed = { data: [{ id: 'wal_1', name: 'Treasury' }] };
  payments
    .answer('listWallets', () => listed)
    .answer('listRecipients', () => ({ data: [] }))
    .answer('listCorridors', () => ({ data: [] }));
  await resubmitCallback(approvalDeps(workflow, { reads: readsOn(payments) }))(args);
  return { bolt, request };
}

describe('resubmitCallback', () => {
  it('opens the request form to its requester, filled in as it was, to replace it', async () => {
    const { bolt, request } = await click('U0ALICE');
    expect(bolt.said).toEqual(['ack', 'views.open', 'views.update']);
    const form = bolt.views[1]?.args.view as { callback_id: string; private_metadata: string };
    expect(form.callback_id).toBe(VIEW.request);
    expect(parseRequestForm(form.private_metadata)).toMatchObject({
      operationId: 'createPayout',
      supersedes: request.id,
    });
    const shown = JSON.stringify(form);
    expect(shown).toContain('"initial_value":"10000.00"');
    expect(shown).toContain('"initial_value":"Invoice 2291"');
  });

  it('refuses anyone else, saying only its requester may', async () => {
    const { bolt, request } = await click('U0BOB');
    expect(modalText(bolt)).toBe(
      `Only the person who requested #${request.id} can edit and resubmit it.`,
    );
  });
});
