import { randomUUID } from 'node:crypto';
import type { Logger } from '../../logger.ts';

/**
 * Runs a listener's work after its ack. A failure inside payops is logged with a short reference
 * and turned into `failure(reference)`, the answer the person gets instead of none: they can
 * quote the reference, an administrator finds it in the logs. `context` (who asked, where) goes
 * into that log line only.
 */
export async function guarded<A>(
  logger: Logger,
  work: () => Promise<A>,
  failure: (reference: string) => A,
  context?: Record<string, string | number | undefined>,
): Promise<A> {
  try {
    return await work();
  } catch (error) {
    const reference = randomUUID().slice(0, 8);
    logger.error({ err: error, reference, ...context }, 'a listener failed inside payops');
    return failure(reference);
  }
}
