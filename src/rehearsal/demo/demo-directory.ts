import {
  DEFAULT_CHANNELS,
  DEFAULT_USER_GROUPS,
  DEFAULT_USERS,
  dmChannelFor,
  type SlackChannel,
  type SlackUser,
  type UserGroupConfig,
} from '../sandbox/slack.ts';
import type { NameDirectory } from './to-text.ts';

/** The people and channels of the demo's emulated workspace, for the console. */

export interface DemoWorkspace {
  readonly users: readonly SlackUser[];
  readonly channels: Readonly<Record<string, SlackChannel>>;
  readonly userGroups: Readonly<Record<string, UserGroupConfig>>;
}

/** The emulation's own workspace: alice, bob, carol, dave and erin in #payops, #approvals, #general. */
export const EMULATED_WORKSPACE: DemoWorkspace = {
  users: DEFAULT_USERS,
  channels: DEFAULT_CHANNELS,
  userGroups: DEFAULT_USER_GROUPS,
};

/** The emulated workspace's names both ways: ids → names in answers, names → ids for `as`/`in`. */
export class WorkspaceDirectory implements NameDirectory {
  constructor(private readonly workspace: DemoWorkspace) {}

  userName(userId: string): string | undefined {
    return this.workspace.users.find((user) => user.id === userId)?.name;
  }

  channelName(channelId: string): string | undefined {
    return this.workspace.channels[channelId]?.name;
  }

  groupHandle(groupId: string): string | undefined {
    const group = this.workspace.userGroups[groupId];
    if (group === undefined) return undefined;
    // The emulation gives a group configured as a bare member list its lower-cased id as handle.
    return 'handle' in group ? group.handle : groupId.toLowerCase();
  }

  /** `erin`, `@erin`, `U0ERIN` or `<@U0ERIN>`. */
  findUser(typed: string): SlackUser | undefined {
    const key = typed
      .replace(/^<@|>$/g, '')
      .replace(/^@/, '')
      .toLowerCase();
    return this.workspace.users.find(
      (user) => user.name.toLowerCase() === key || user.id.toLowerCase() === key,
    );
  }

  /** `#payops`, `payops`, `C0PAYOPS` or `<#C0PAYOPS>`: the channel id. */
  findChannel(typed: string): string | undefined {
    const key = typed
      .replace(/^<#|>$/g, '')
      .replace(/^#/, '')
      .toLowerCase();
    return Object.entries(this.workspace.channels).find(
      ([id, channel]) => channel.name.toLowerCase() === key || id.toLowerCase() === key,
    )?.[0];
  }

  /** People who can type commands: not bots, not deactivated accounts. */
  people(): SlackUser[] {
    return this.workspace.users.filter((user) => !user.is_bot && !user.deleted);
  }

  channelIds(): string[] {
    return Object.keys(this.workspace.channels);
  }

  /** Where a message is: `#payops`, or `a DM with @bob`. */
  place(channelId: string): string {
    if (channelId.startsWith('D')) {
      const user = this.workspace.users.find(
        (candidate) => dmChannelFor(candidate.id) === channelId,
      );
      return `a DM with @${user?.name ?? channelId}`;
    }
    return `#${this.channelName(channelId) ?? channelId}`;
  }
}
