import type {
  AllMiddlewareArgs,
  BlockAction,
  ButtonAction,
  RespondFn,
  SlackActionMiddlewareArgs,
} from '@slack/bolt';
import type { WebClient } from '@slack/web-api';
import type { CardClick, ClickOrigin } from '../../../app/approvals.ts';
import { answerPrivately } from '../../answer-privately.ts';
import { parseHomeButton } from '../../blocks/home.ts';
import { interactionFailedText, NOT_A_REQUEST_BUTTON } from '../../blocks/messages.ts';
import { requestIdOf } from '../../interaction-ids.ts';
import type { ApprovalDeps } from '../deps.ts';
import { guarded } from '../guarded.ts';
import { answerInModal } from '../modals.ts';

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

type ButtonArgs = AllMiddlewareArgs & SlackActionMiddlewareArgs<BlockAction<ButtonAction>>;

/** Opens an approver's form about request `id` (a rejection's, a question's), from `origin`. */
export type OpenForm = (
  deps: ApprovalDeps,
  client: WebClient,
  body: BlockAction,
  id: number,
  origin: ClickOrigin,
) => Promise<void>;

/** A card button whose answer is a form about its request, carrying the card it came from. */
export function cardFormCallback(deps: ApprovalDeps, open: OpenForm) {
  return async ({ ack, body, action, client, respond }: ButtonArgs): Promise<void> => {
    await ack();
    await answerClick(deps, respond, async () => {
      const id = requestIdOf(action.value);
      if (id === undefined) return NOT_A_REQUEST_BUTTON;
      await open(deps, client, body, id, cardOf(body));
      return undefined;
    });
  };
}

/** The same button on a Home tab: the form carries what the Home showed. */
export function homeFormCallback(deps: ApprovalDeps, open: OpenForm, what: string) {
  return async ({ ack, body, action, client }: ButtonArgs): Promise<void> => {
    await ack();
    const button = parseHomeButton(action.value);
    if (!button) {
      await answerInModal(deps, client, body.trigger_id, async () => NOT_A_REQUEST_BUTTON);
      return;
    }
    await open(deps, client, body, button.id, { home: button.shown }).catch((error) =>
      deps.logger.error({ err: error, requestId: button.id }, `the ${what} form failed to open`),
    );
  };
}
