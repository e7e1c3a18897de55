import type { BlockAction, RespondFn } from '@slack/bolt';
import type { CardClick } from '../../../app/approvals.ts';
import { answerPrivately } from '../../answer-privately.ts';
import { interactionFailedText } from '../../blocks/messages.ts';
import type { ApprovalDeps } from '../deps.ts';
import { guarded } from '../guarded.ts';

/**
 * A card button's work after its ack: what it returns (or, if it fails inside payops, the
 * failure with its reference) is told to the person who clicked alone; the approval message
 * itself is not touched.
 */
export async function answerClick(
  deps: Pick<ApprovalDeps, 'logger'>,
  respond: RespondFn,
  work: () => Promise<string | undefined>,
): Promise<void> {
  const text = await guarded(deps.logger, work, interactionFailedText);
  if (text !== undefined) await answerPrivately(respond, { text }, deps.logger);
}

/** The approval message a card button was clicked on. */
export function cardOf(body: BlockAction): Omit<CardClick, 'fingerprint'> {
  return {
    channelId: body.channel?.id ?? body.container?.channel_id,
    messageTs: body.message?.ts ?? body.container?.message_ts,
  };
}
