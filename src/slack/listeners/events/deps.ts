import type { AccessControl } from '../../../app/access.ts';
import type { Logger } from '../../../logger.ts';
import type { HomeRefresher } from '../../home-refresher.ts';

/** What Slack's events reach: the Home tabs to draw, the user groups' cached members. */
export interface EventDeps {
  home: Pick<HomeRefresher, 'opened'>;
  access: AccessControl;
  logger: Logger;
}
