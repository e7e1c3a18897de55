import { describe, expect, it } from 'vitest';
import { answered, commandOnFakes } from '../../../helpers/listeners.ts';

/** The usages a help answer lists, one per line. */
function usages(shown: string): string[] {
  return [...shown.matchAll(/• `(\/payments [a-z-]+)/g)].map((match) => match[1] as string);
}

describe('payCommand: help', () => {
  it('lists the reads, the writes and the approvers’ commands to someone who holds every role', async () => {
    const { run } = commandOnFakes();
    const bolt = await run('U0ALICE', 'help');
    expect(bolt.said).toEqual(['ack', 'respond']);
    const listed = usages(answered(bolt));
    expect(listed).toEqual(
      expect.arrayContaining(['/payments balance', '/payments payout', '/payments freeze']),
    );
  });

  it('lists to a reader the reads alone', async () => {
    const { run } = commandOnFakes();
    const listed = usages(answered(await run('U0ERIN', 'help')));
    expect(listed).toContain('/payments balance');
    expect(listed).not.toContain('/payments payout');
    expect(listed).not.toContain('/payments freeze');
  });

  it('lists to an approver who may not request the approvers’ commands, not the writes', async () => {
    const { run } = commandOnFakes();
    const listed = usages(answered(await run('U0CAROL', 'help')));
    expect(listed).toContain('/payments freeze');
    expect(listed).not.toContain('/payments payout');
  });

  it('says Slack could not confirm a group, rather than refusing, when the directory fails', async () => {
    const { run, directory } = commandOnFakes();
    directory.unavailable = true;
    const bolt = await run('U0FRANK', 'help');
    expect(bolt.responses[0]?.text).toBe(
      'payops could not check your user-group membership with Slack just now, so it did not run the command. Please try again in a minute.',
    );
  });
});
