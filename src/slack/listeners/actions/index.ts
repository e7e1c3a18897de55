import type { App, BlockAction, ButtonAction } from '@slack/bolt';
import { ACTION } from '../../interaction-ids.ts';
import type { ApprovalDeps } from '../deps.ts';
import { approveCallback } from './approve.ts';
import { askCallback } from './ask.ts';
import { cancelCallback } from './cancel.ts';
import { homeApproveCallback } from './home-approve.ts';
import { homeAskCallback } from './home-ask.ts';
import { homeRejectCallback } from './home-reject.ts';
import { rejectCallback } from './reject.ts';
import { resubmitCallback } from './resubmit.ts';

/**
 * The approval flow's buttons, on cards, confirmations and Home tabs. Every click is acknowledged
 * first; the decision is the workflow's, taken at the moment of the click.
 */
export function register(app: App, deps: ApprovalDeps): void {
  app.action<BlockAction<ButtonAction>>(ACTION.approve, approveCallback(deps));
  app.action<BlockAction<ButtonAction>>(ACTION.reject, rejectCallback(deps));
  app.action<BlockAction<ButtonAction>>(ACTION.cancel, cancelCallback(deps));
  app.action<BlockAction<ButtonAction>>(ACTION.homeApprove, homeApproveCallback(deps));
  app.action<BlockAction<ButtonAction>>(ACTION.homeReject, homeRejectCallback(deps));
  app.action<BlockAction<ButtonAction>>(ACTION.ask, askCallback(deps));
  app.action<BlockAction<ButtonAction>>(ACTION.homeAsk, homeAskCallback(deps));
  app.action<BlockAction<ButtonAction>>(ACTION.resubmit, resubmitCallback(deps));
}
