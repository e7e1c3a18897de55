import { describe, expect, it } from 'vitest';
import { renderRequestResult } from '../../../src/slack/text/approvals.ts';

const SPEAKING = { accessAdmin: '<@U0ADMIN>', command: '/payments' };

describe('renderRequestResult', () => {
  it('a request whose payee window kept changing is not requested, and says to send it again', () => {
    const answer = renderRequestResult(SPEAKING, { kind: 'window_busy' }, 'createPayout');
    expect(answer?.text).toBe(
      ':no_entry: *Not requested, nothing stored:* other requests to the same payee were being made at the same moment, so the approvals it needs could not be counted. Send it again.',
    );
  });
});
