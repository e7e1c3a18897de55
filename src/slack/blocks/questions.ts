import type { KnownBlock } from '@slack/types';
import type { PaymentRequest } from '../../domain/approval.ts';
import { isRecord } from '../../payments/response-shape.ts';
import { ACTION } from '../interaction-ids.ts';
import { person, plainText } from './approval-card.ts';
import { freeText, section, truncate } from './format.ts';

/**
 * An approver's question in the request's thread, mentioning its requester, with the button
 * only they may use (checked at the click): edit and resubmit. `told` is the notice's body, the
 * question as asked then: a later question does not rewrite an earlier notice.
 */
export function renderQuestionNotice(
  request: PaymentRequest,
  told: unknown,
): { text: string; blocks: KnownBlock[] } {
  const asked = isRecord(told) ? told : {};
  const by = typeof asked.by === 'string' ? asked.by : '';
  const question = typeof asked.text === 'string' ? asked.text : '';
  const text = truncate(
    `:question: ${person(request.requesterId)} ${person(by)} asks about #${request.id} before deciding: ${freeText(question, 600) || '_no question given_'}\nIt stays pending. Answer here, or edit and resubmit it: a new request replaces this one and its approvals start again.`,
    3000,
  );
  return {
    text,
    blocks: [
      section(text),
      {
        type: 'actions',
        elements: [
          {
            type: 'button',
            action_id: ACTION.resubmit,
            text: plainText('Edit and resubmit', 75),
            value: String(request.id),
          },
        ],
      },
    ],
  };
}
