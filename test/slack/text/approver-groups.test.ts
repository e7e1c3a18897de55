import { describe, expect, it } from 'vitest';
import { APPROVER_GROUP_CHANGED } from '../../../src/domain/approver-group-change.ts';
import { renderAnnouncement } from '../../../src/slack/blocks/announcements.ts';
import { approverGroupChangeText } from '../../../src/slack/text/approver-groups.ts';

describe('the words of an approver group’s change', () => {
  it('names who was added and who removed, by group, as Slack mentions them', () => {
    expect(
      approverGroupChangeText({ group: 'S0APPROVERS', added: ['U0ERIN'], removed: ['U0BOB'] }),
    ).toBe('<@U0ERIN> was added to approvers group <!subteam^S0APPROVERS>; <@U0BOB> was removed.');
    expect(
      approverGroupChangeText({ group: 'S0APPROVERS', added: [], removed: ['U0BOB', 'U0CAROL'] }),
    ).toBe('<@U0BOB> and <@U0CAROL> were removed from approvers group <!subteam^S0APPROVERS>.');
    expect(
      approverGroupChangeText({ group: 'S0TEAM', added: ['U0A1', 'U0B2', 'U0C3'], removed: [] }),
    ).toBe('<@U0A1>, <@U0B2> and <@U0C3> were added to approvers group <!subteam^S0TEAM>.');
  });

  it('escapes what is not a Slack id, so a stored value cannot mention the channel', () => {
    const text = approverGroupChangeText({ group: '<!channel>', added: ['<!here>'], removed: [] });
    expect(text).not.toMatch(/<!channel>|<!here>/);
  });

  it('draws the outbox’s announcement from what its audit row holds, and nothing from anything else', () => {
    const body = { group: 'S0APPROVERS', added: ['U0ERIN'], removed: [] };
    expect(renderAnnouncement(APPROVER_GROUP_CHANGED, body)?.text).toBe(
      '<@U0ERIN> was added to approvers group <!subteam^S0APPROVERS>.',
    );
    const empty = { group: 'S0APPROVERS', added: [], removed: [] };
    expect(renderAnnouncement(APPROVER_GROUP_CHANGED, empty)).toBe(undefined);
    const garbled = { group: 'S0APPROVERS', added: 'U0ERIN' };
    expect(renderAnnouncement(APPROVER_GROUP_CHANGED, garbled)).toBe(undefined);
    expect(renderAnnouncement(APPROVER_GROUP_CHANGED, null)).toBe(undefined);
  });
});
