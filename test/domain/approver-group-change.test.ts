import { describe, expect, it } from 'vitest';
import { groupChange, readApproverGroupChange } from '../../src/domain/approver-group-change.ts';

describe('an approver group’s change', () => {
  it('is who joined and who left, each sorted, whatever the order or repeats of the lists', () => {
    expect(
      groupChange('S0TEAM', ['U0BOB', 'U0ALICE'], ['U0DAVE', 'U0BOB', 'U0CAROL', 'U0BOB']),
    ).toEqual({
      group: 'S0TEAM',
      added: ['U0CAROL', 'U0DAVE'],
      removed: ['U0ALICE'],
    });
  });

  it('is read back from an audit row’s detail only when it holds one', () => {
    const change = { group: 'S0TEAM', added: ['U0ERIN'], removed: [] };
    expect(readApproverGroupChange(change)).toEqual(change);
    expect(readApproverGroupChange({ ...change, added: [] })).toBe(undefined);
    expect(readApproverGroupChange({ ...change, added: 'U0ERIN' })).toBe(undefined);
    expect(readApproverGroupChange({ added: ['U0ERIN'], removed: [] })).toBe(undefined);
    expect(readApproverGroupChange(null)).toBe(undefined);
  });
});
