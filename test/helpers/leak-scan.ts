import { once } from 'node:events';
import { createReadStream, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { StringDecoder } from 'node:string_decoder';
import { sensitiveKind } from '../../src/domain/masking.ts';
import { createSandboxState, SANDBOX_KEYS } from '../../src/rehearsal/sandbox/payments-data.ts';
import { DEFAULT_SLACK } from '../../src/rehearsal/sandbox/slack.ts';
import type { TrailKind } from './leak-trail.ts';

/**
 * The leak scan: looks through what the end-to-end tests kept (test/helpers/leak-trail.ts) for
 * any secret a bot was configured with and any full banking number of the fixtures.
 */

/** Shorter values (a test's deliberately short key, say) would match ordinary text. */
const MIN_SECRET_LENGTH = 8;

export interface Needle {
  readonly value: string;
  /** What it is, printed instead of the value. */
  readonly label: string;
  /**
   * A banking number matches only whole, not inside a longer run of digits or letters: an id
   * or a timestamp holding the same digits is not the number.
   */
  readonly whole: boolean;
}

/**
 * What never leaves payops in the clear: the sandbox's API keys, the emulation's token and
 * signing secret, and every banking number the sandbox is seeded with (the test fixtures use
 * the same ones).
 */
export function fixtureNeedles(): Needle[] {
  const secrets = [
    ...Object.keys(SANDBOX_KEYS).map((key) => ({ value: key, label: 'a sandbox API key' })),
    { value: DEFAULT_SLACK.botToken, label: 'the Slack bot token' },
    { value: DEFAULT_SLACK.signingSecret, label: 'the Slack signing secret' },
  ].map((needle) => ({ ...needle, whole: false }));
  const numbers = [...new Set(bankingValues(createSandboxState().businesses))].map((value) => ({
    value,
    label: `a fixture banking number ending ${value.slice(-4)}`,
    whole: true,
  }));
  return [...secrets, ...numbers];
}

/**
 * Every account and routing number and IBAN, at any depth: the values of banking fields, but
 * for crypto addresses (shown in full where the business's own) and BICs (public).
 */
function bankingValues(value: unknown): string[] {
  if (value instanceof Map) return bankingValues([...value.values()]);
  if (Array.isArray(value)) return value.flatMap(bankingValues);
  if (value === null || typeof value !== 'object') return [];
  return Object.entries(value).flatMap(([key, item]) =>
    sensitiveKind(key) === 'banking' &&
    /account|routing|iban/i.test(key) &&
    typeof item === 'string'
      ? [item]
      : bankingValues(item),
  );
}

export interface KindCount {
  files: number;
  lines: number;
  bytes: number;
}

export interface Hit {
  readonly label: string;
  readonly file: string;
  /** The line around the hit, the value itself replaced by its label. */
  readonly excerpt: string;
}

export interface ScanResult {
  counts: Partial<Record<TrailKind, KindCount>>;
  /** How many distinct values were looked for. */
  needles: number;
  hits: Hit[];
}

const MAX_HITS = 20;

/**
 * Scans every trail file in `dir` for the fixtures' needles and the secrets the bots recorded
 * (the 'secrets' files, which are read, never scanned).
 */
export async function scanTrail(dir: string): Promise<ScanResult> {
  const files = readdirSync(dir).sort();
  const kindOf = (file: string) => file.slice(0, file.indexOf('.')) as TrailKind;
  const configured = files
    .filter((file) => kindOf(file) === 'secrets')
    .flatMap((file) => readFileSync(join(dir, file), 'utf8').split('\n').filter(Boolean))
    .flatMap((line) => JSON.parse(line) as string[]);
  const needles = withSpellings([
    ...fixtureNeedles(),
    ...configured.map((value) => ({ value, label: 'a configured secret', whole: false })),
  ]);
  const matcher = matcherOf(needles);
  const result: ScanResult = { counts: {}, needles: needles.length, hits: [] };
  for (const file of files) {
    const kind = kindOf(file);
    if (kind === 'secrets') continue;
    const count = result.counts[kind] ?? { files: 0, lines: 0, bytes: 0 };
    result.counts[kind] = count;
    count.files += 1;
    await scanFile(join(dir, file), (line) => {
      count.lines += 1;
      count.bytes += Buffer.byteLength(line) + 1;
      for (const match of line.matchAll(matcher.pattern)) {
        if (result.hits.length >= MAX_HITS) return;
        const label = matcher.labelOf(match[0]);
        const start = Math.max(0, match.index - 80);
        const around = line.slice(start, match.index + match[0].length + 80);
        result.hits.push({ label, file, excerpt: around.split(match[0]).join(`[${label}]`) });
      }
    });
  }
  return result;
}

/** Each value also as it reads JSON-escaped and percent-encoded, deduplicated. */
function withSpellings(needles: Needle[]): Needle[] {
  const byValue = new Map<string, Needle>();
  for (const needle of needles) {
    if (needle.value.length < MIN_SECRET_LENGTH) continue;
    const spellings = [
      needle.value,
      JSON.stringify(needle.value).slice(1, -1),
      encodeURIComponent(needle.value),
    ];
    for (const value of spellings) {
      if (!byValue.has(value)) byValue.set(value, { ...needle, value });
    }
  }
  return [...byValue.values()];
}

function matcherOf(needles: Needle[]) {
  const literal = (value: string) => value.replace(/[.*+?^${}()|[\]\\/-]/g, '\\$&');
  // Longest first, so a value that holds another is reported as itself.
  const sorted = [...needles].sort((a, b) => b.value.length - a.value.length);
  const alternatives = sorted.map((needle) =>
    needle.whole
      ? `(?<![0-9A-Za-z])${literal(needle.value)}(?![0-9A-Za-z])`
      : literal(needle.value),
  );
  const labels = new Map(needles.map((needle) => [needle.value, needle.label]));
  return {
    pattern: new RegExp(alternatives.join('|'), 'g'),
    labelOf: (found: string) => labels.get(found) ?? 'a secret',
  };
}

/** Calls `onLine` with each line of the file, read in chunks (a trail may be large). */
async function scanFile(path: string, onLine: (line: string) => void): Promise<void> {
  const decoder = new StringDecoder('utf8');
  let carried = '';
  const stream = createReadStream(path, { highWaterMark: 4 << 20 });
  stream.on('data', (chunk) => {
    const text = carried + decoder.write(chunk as Buffer);
    const end = text.lastIndexOf('\n');
    if (end === -1) {
      carried = text;
      return;
    }
    for (const line of text.slice(0, end).split('\n')) onLine(line);
    carried = text.slice(end + 1);
  });
  await once(stream, 'end');
  const rest = carried + decoder.end();
  if (rest !== '') onLine(rest);
}
