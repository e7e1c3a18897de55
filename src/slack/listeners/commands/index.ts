import type { App } from '@slack/bolt';
import type { CommandDeps } from './deps.ts';
import { payCommand } from './pay-command.ts';

export type { CommandDeps } from './deps.ts';

/** The slash command surface: one command, under the name this deployment configures. */
export function register(app: App, deps: CommandDeps): void {
  app.command(deps.command, payCommand(deps));
}
