import { describe, expect, it } from 'vitest';
import { createLogger } from '../src/logger.ts';

describe('the logger', () => {
  it('writes no configured secret, however a line spells it: raw, JSON-escaped or URL-encoded', () => {
    const secret = 'sk_live/"quoted"+key=1';
    const lines: string[] = [];
    const logger = createLogger({
      level: 'info',
      secrets: [secret],
      destination: { write: (line: string) => lines.push(line) },
    });
    logger.info({ url: `https://example.test/?k=${encodeURIComponent(secret)}` }, 'called');
    logger.info(`echoed ${secret}`);
    logger.info({ note: secret }, 'quoted');
    const written = lines.join('');
    expect(lines).toHaveLength(3);
    for (const spelling of [
      secret,
      JSON.stringify(secret).slice(1, -1),
      encodeURIComponent(secret),
    ]) {
      expect(written).not.toContain(spelling);
    }
    expect(written.split('[REDACTED]').length - 1).toBe(3);
  });
});
