import type { App } from '@slack/bolt';

/** The part of Bolt's App that listeners register on. */
export type ListenerRegistry = Pick<App, 'command' | 'event' | 'action' | 'view'>;
