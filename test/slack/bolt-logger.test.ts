import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createLogger } from '../../src/logger.ts';
import { boltLogger } from '../../src/slack/bolt-logger.ts';

describe('Bolt’s log lines through payops’s logger', () => {
  it('drop the response_url and trigger_id of a raw Socket Mode payload', () => {
    let written = '';
    const destination = new Writable({
      write(chunk, _encoding, done) {
        written += chunk.toString();
        done();
      },
    });
    const logger = boltLogger(createLogger({ level: 'debug', secrets: [], destination }));
    logger.debug(
      'Received a message on the WebSocket: {"payload":{"response_url":"https://hooks.slack.com/commands/T1/1/secret","trigger_id":"1.2.abc","text":"balance"}}',
    );
    expect(written).toContain('balance');
    expect(written).not.toContain('hooks.slack.com');
    expect(written).not.toContain('1.2.abc');
  });
});
