import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { scanTrail } from '../helpers/leak-scan.ts';
import { LEAK_SCAN_DIR_VARIABLE } from '../helpers/leak-trail.ts';

/**
 * Runs after every other end-to-end test (its own project, a later `sequence.groupOrder`), over
 * all they kept: each Slack Web API call with the emulation's reply, each response_url post,
 * each uploaded file, each answer payops gave a signed request, each log line of the rehearsals
 * and everything payops processes printed, on PGlite and on PostgreSQL.
 */
const dir = process.env[LEAK_SCAN_DIR_VARIABLE];
const e2eRan = dir !== undefined && existsSync(dir);

describe('what the end-to-end tests saw payops produce', () => {
  it.skipIf(!e2eRan)(
    'holds no secret, no key, no token and no full banking number: 0 hits',
    async () => {
      const scan = await scanTrail(dir as string);
      console.info(
        `leak scan: ${scan.needles} values looked for in\n${Object.entries(scan.counts)
          .map(
            ([kind, count]) =>
              `  ${kind}: ${count.lines} lines, ${count.bytes} bytes (${count.files} files)`,
          )
          .join('\n')}`,
      );
      // The trail really was written: the scan read Slack traffic and log lines, not nothing.
      expect(scan.counts['slack-calls']?.lines).toBeGreaterThan(0);
      expect(scan.counts['bot-answers']?.lines).toBeGreaterThan(0);
      expect(scan.counts.logs?.lines).toBeGreaterThan(0);
      expect(scan.hits).toEqual([]);
    },
    120_000,
  );
});

describe('the leak scan', () => {
  it('finds a configured secret and a full fixture number, not a masked one or digits inside an id', async () => {
    const planted = mkdtempSync(join(tmpdir(), 'payops-leak-scan-check-'));
    try {
      writeFileSync(
        join(planted, 'secrets.1-0.txt'),
        `${JSON.stringify(['configured-Secret/1'])}\n`,
      );
      writeFileSync(
        join(planted, 'bot-answers.1-0.txt'),
        '{"text":"account ••••6789, request req_90001234567891"}\n{"text":"account 000123456789"}\n',
      );
      writeFileSync(join(planted, 'logs.1-0.txt'), 'key=configured-Secret%2F1\n');
      const scan = await scanTrail(planted);
      expect(scan.hits.map((hit) => [hit.file, hit.label])).toEqual([
        ['bot-answers.1-0.txt', 'a fixture banking number ending 6789'],
        ['logs.1-0.txt', 'a configured secret'],
      ]);
      expect(scan.hits.map((hit) => hit.excerpt).join()).not.toMatch(/000123456789|Secret/);
      expect(scan.counts['bot-answers']).toEqual({ files: 1, lines: 2, bytes: expect.any(Number) });
    } finally {
      rmSync(planted, { recursive: true, force: true });
    }
  });
});
