import { describe, expect, it } from 'vitest';
import { APPROVER_HELP, writeCommandHelp } from '../../../src/app/help.ts';
import { parseCommand } from '../../../src/domain/commands.ts';
import { parseWriteCommand } from '../../../src/domain/write-commands.ts';
import {
  fieldErrorText,
  freezeText,
  helpLines,
  readProblemText,
  readUsageText,
  sayWhichResolveText,
  writeUsageText,
} from '../../../src/slack/text/commands.ts';

/** A deployment that renamed its command (`PAYOPS_COMMAND=/payments`). */
const COMMAND = '/payments';
const OLD_NAME = /\/pay(?![\w-])/;

function readProblem(text: string): string {
  const parsed = parseCommand(text);
  if (parsed.kind !== 'invalid') throw new Error(`expected a mistake, got ${parsed.kind}`);
  return readProblemText(COMMAND, parsed.problem);
}

function writeProblems(text: string): string[] {
  const parsed = parseWriteCommand(text);
  if (parsed.kind !== 'invalid') throw new Error(`expected mistakes, got ${parsed.kind}`);
  return parsed.errors.map((error) => fieldErrorText(COMMAND, error));
}

describe('command text under a renamed command', () => {
  it('help lists every command under its configured name', () => {
    const lines = helpLines(COMMAND, [...writeCommandHelp(() => []), ...APPROVER_HELP]);
    expect(lines.map((line) => line.usage)).toContain('`/payments requests`');
    expect(lines.map((line) => line.usage)).toContain(
      '`/payments resolve <n> executed|not-executed <what you checked>`',
    );
    for (const line of lines) {
      expect(line.usage).toMatch(/^`\/payments /);
      expect(line.usage).not.toMatch(OLD_NAME);
    }
  });

  it('usages name it', () => {
    expect(readUsageText(COMMAND, 'balance')).toBe('Usage: `/payments balance [walletId]`');
    expect(writeUsageText(COMMAND, 'reactivateRecipient')).toBe(
      'Usage: `/payments reactivate-recipient <externalAccountId>`',
    );
  });

  it('a read command’s mistakes name it', () => {
    for (const text of ['--sync', 'wallets --bogus', 'balance a b', 'transfers x=1', 'recipient']) {
      const said = readProblem(text);
      expect(said).toContain(COMMAND);
      expect(said).not.toMatch(OLD_NAME);
    }
  });

  it('a write command’s mistakes name it', () => {
    const said = [
      ...writeProblems('update-recipient'),
      ...writeProblems('reactivate-recipient ea_1 ea_2'),
      ...writeProblems('deactivate-deposit-account va_1 reason=old'),
      ...writeProblems('payout amout=5 --now'),
    ];
    expect(said.filter((text) => text.includes(COMMAND)).length).toBeGreaterThanOrEqual(4);
    for (const text of said) expect(text).not.toMatch(OLD_NAME);
  });

  it('approver commands’ answers name it', () => {
    expect(freezeText(COMMAND, true, '')).toContain('`/payments unfreeze`');
    expect(sayWhichResolveText(COMMAND)).toContain('`/payments resolve 12 executed');
  });
});
