import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OPERATION_IDS, OPERATIONS, type WriteOperationId } from '../../src/domain/operations.ts';
import { type Rehearsal, startRehearsal } from '../../src/rehearsal/rehearsal.ts';
import { ACTION } from '../../src/slack/interaction-ids.ts';
import { EXAMPLE_CALLS } from '../helpers/payments.ts';
import { ask } from '../helpers/slack.ts';

let r: Rehearsal;
beforeAll(async () => {
  // Every write once, as fast as the approvals allow: Slack's pace is test/e2e/slack-outbox.test.ts's.
  r = await startRehearsal({ slack: { rateLimits: 'off' } });
});
afterAll(() => r.close());

const WRITES = OPERATION_IDS.filter(
  (id): id is WriteOperationId => OPERATIONS[id].kind === 'write',
);

/** `/pay <word> <path ids> field=value …`, exactly as a requester would type it. */
function commandFor(operationId: WriteOperationId): string {
  const { path = {}, body = {} } = EXAMPLE_CALLS[operationId];
  const fields = Object.entries(body).map(([name, value]) =>
    /\s/.test(value) ? `${name}="${value}"` : `${name}=${value}`,
  );
  return [OPERATIONS[operationId].command, ...Object.values(path), ...fields].join(' ');
}

describe('every write of the spec, requested in Slack and approved by someone else', () => {
  it.each(WRITES)(
    '%s reaches the provider once, with exactly the approved body',
    async (operationId) => {
      const before = r.sandbox.requests.filter((entry) => entry.operationId === operationId).length;
      const answer = await ask(r, commandFor(operationId));
      const id = Number(/Request #(\d+)/.exec(String(answer.body.text))?.[1]);
      expect(id, answer.shown).toBeGreaterThan(0);
      const card = await r.slack.waitForCall(
        'chat.postMessage',
        (call) =>
          call.args.channel === 'C0APPROVALS' && String(call.args.text).startsWith(`#${id} `),
      );
      await r.driver.blockAction({
        userId: 'U0CAROL',
        actionId: ACTION.approve,
        message: { channel: 'C0APPROVALS', ts: (card.response as unknown as { ts: string }).ts },
      });
      const done = await r.slack.waitForCall(
        'chat.update',
        (call) =>
          String(call.args.text).startsWith(`#${id} `) && /submitted/.test(String(call.args.text)),
      );
      expect(String(done.args.text)).toContain('not settled');
      // A recipient is shown by name beside its id, as approvers need to see who is paid.
      if (EXAMPLE_CALLS[operationId].body?.external_account_id) {
        expect(JSON.stringify(card.args)).toContain('Northwind');
      }

      const sent = r.sandbox.requests
        .filter((entry) => entry.operationId === operationId)
        .slice(before);
      expect(sent).toHaveLength(1);
      const stored = await r.bot.store.get(id);
      expect(sent[0]?.body).toBe(stored?.body ?? '');
      expect(JSON.parse(sent[0]?.body || '{}')).toEqual(EXAMPLE_CALLS[operationId].body ?? {});
    },
  );
});
