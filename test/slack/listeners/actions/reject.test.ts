import type {
  AllMiddlewareArgs,
  BlockAction,
  ButtonAction,
  SlackActionMiddlewareArgs,
} from '@slack/bolt';
import { describe, expect, it } from 'vitest';
import { VIEW } from '../../../../src/slack/interaction-ids.ts';
import { rejectCallback } from '../../../../src/slack/listeners/actions/reject.ts';
import { parseRejectForm } from '../../../../src/slack/private-metadata.ts';
import { fakeBolt } from '../../../fakes/bolt.ts';
import { approvalDeps, buttonClick } from '../../../helpers/listeners.ts';
import { CARD, workflowOnFakes } from '../../../helpers/workflow.ts';

type RejectArgs = AllMiddlewareArgs & SlackActionMiddlewareArgs<BlockAction<ButtonAction>>;

describe('rejectCallback', () => {
  it('acks first, then opens a form asking why, carrying the request and its card, and rejects nothing yet', async () => {
    const { workflow, store, requested } = workflowOnFakes();
    const request = await requested();
    const bolt = fakeBolt();
    const args = { ...bolt, ...buttonClick('U0BOB', String(request.id)) } as unknown as RejectArgs;
    await rejectCallback(approvalDeps(workflow))(args);
    expect(bolt.said).toEqual(['ack', 'views.open', 'views.update']);
    expect(bolt.views[0]?.args).toMatchObject({ trigger_id: 'T0TRIGGER' });
    const form = bolt.views[1]?.args.view as { callback_id: string; private_metadata: string };
    expect(form.callback_id).toBe(VIEW.rejectReason);
    expect(parseRejectForm(form.private_metadata)).toMatchObject({ id: request.id, origin: CARD });
    expect(store.requests.get(request.id)?.status).toBe('pending');
  });
});
