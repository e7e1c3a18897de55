import {
  APPROVER_GROUP_CHANGED,
  readApproverGroupChange,
} from '../../domain/approver-group-change.ts';
import { POLICY_CHANGED, readPolicyChange } from '../../domain/policy-version.ts';
import { renderApproverGroupChange } from '../text/approver-groups.ts';
import { renderPolicyChange } from '../text/policy.ts';
import type { SlackMessage } from './format.ts';

/**
 * An announcement of the outbox (a message to the approvals channel of no request), drawn from
 * its event and the data stored with it; undefined when payops has no words for it, or its data
 * is not what the event stores.
 */
export function renderAnnouncement(
  event: string | undefined,
  body: unknown,
): SlackMessage | undefined {
  switch (event) {
    case POLICY_CHANGED: {
      const change = readPolicyChange(body);
      return change && renderPolicyChange(change);
    }
    case APPROVER_GROUP_CHANGED: {
      const change = readApproverGroupChange(body);
      return change && renderApproverGroupChange(change);
    }
    default:
      return undefined;
  }
}
