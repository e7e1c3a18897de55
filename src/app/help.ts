import { READ_COMMAND_WORDS, usage } from '../domain/commands.ts';
import { OPERATION_IDS, OPERATIONS } from '../domain/operations.ts';
import type { ReadService } from './reads.ts';

export interface HelpEntry {
  usage: string;
  summary: string;
  /** False when the key lacks a scope the command always needs. */
  available: boolean;
  reason?: string;
}

/** Every read command, and whether this deployment's key can run it. */
export function readCommandHelp(reads: ReadService): HelpEntry[] {
  return READ_COMMAND_WORDS.filter((word) => word !== 'help').map((word) => {
    const operations = OPERATION_IDS.filter((id) => OPERATIONS[id].command === word);
    const missing = [...new Set(operations.flatMap((id) => reads.missingScopes(id)))];
    const syncMissing = operations.some((id) => OPERATIONS[id].query.some((q) => q.name === 'sync'))
      ? reads.missingScopes(operations[0] as (typeof operations)[number], ['sync'])
      : [];
    const summary = operations.map((id) => OPERATIONS[id].summary).join('; ');
    const reason =
      missing.length > 0
        ? `needs scope ${missing.join(', ')}`
        : syncMissing.length > 0
          ? `--sync needs scope ${syncMissing.join(', ')}`
          : undefined;
    return {
      usage: usage(word).replace(/^Usage: /, ''),
      summary,
      available: missing.length === 0,
      ...(reason ? { reason } : {}),
    };
  });
}
