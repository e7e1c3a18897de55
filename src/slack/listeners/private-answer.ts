import type { RespondFn } from '@slack/bolt';
import type { Logger } from '../../logger.ts';

/**
 * An ephemeral answer to the person who typed the command or clicked, through the request's
 * response_url; the message they acted on is not replaced. One that cannot be delivered (an
 * expired or exhausted response_url, a lost connection) is logged: nothing more can reach them
 * for this request, with `context` (who asked, where).
 */
export async function answerPrivately(
  respond: RespondFn,
  answer: { text: string; blocks?: unknown[] },
  logger: Logger,
  context?: Record<string, string>,
): Promise<void> {
  try {
    await respond({ response_type: 'ephemeral', replace_original: false, ...answer });
  } catch (error) {
    logger.warn({ err: error, ...context }, 'could not answer through response_url');
  }
}
