import { randomBytes } from 'node:crypto';
import { z } from 'zod';
import { listEntries, secret, variable } from './fields.ts';
import { section } from './read.ts';

/** The signing key (fingerprints, the audit chain) and the encryption keys of what is stored. */

const MIN_SIGNING_KEY_LENGTH = 32;
const SIGNING_KEY_ADVICE = 'generate one with openssl rand -base64 32';
const MIN_SIGNING_KEY_VARIETY = 10;
const SIGNING_KEY_STRETCH = 8;

/**
 * Whether a key looks made by hand rather than drawn at random: fewer than 10 different
 * characters, or 8 in a row that recur in it or run in even steps (`aaaa…`, `abcd…`,
 * `passwordpassword…`). A random key of 32 characters or more (base64, hex) fails it about never.
 */
function looksHandMade(key: string): boolean {
  const characters = [...key];
  if (new Set(characters).size < MIN_SIGNING_KEY_VARIETY) return true;
  const seen = new Set<string>();
  for (let start = 0; start + SIGNING_KEY_STRETCH <= characters.length; start++) {
    const stretch = characters.slice(start, start + SIGNING_KEY_STRETCH);
    const text = stretch.join('');
    if (seen.has(text) || runsInEvenSteps(stretch)) return true;
    seen.add(text);
  }
  return false;
}

function runsInEvenSteps(characters: readonly string[]): boolean {
  const codes = characters.map((character) => character.codePointAt(0) as number);
  const step = (codes[1] as number) - (codes[0] as number);
  return codes.every((code, index) => index === 0 || code - (codes[index - 1] as number) === step);
}

const KEY_ID = /^[A-Za-z0-9_-]{1,16}$/;
/** Standard base64 of exactly 32 bytes, as `openssl rand -base64 32` prints it. */
const BASE64_OF_32_BYTES = /^[A-Za-z0-9+/]{43}=$/;
const ENCRYPTION_KEY_FORMAT = '<keyId>:<base64 of 32 bytes>, e.g. k1:$(openssl rand -base64 32)';

export interface EncryptionKey {
  /** Stored with what the key encrypts, so a rotated-out key still decrypts it. */
  readonly id: string;
  readonly key: Buffer;
}

/** `<keyId>:<base64 of 32 bytes>`, or what is wrong with it, never quoting it. */
function parseEncryptionKey(text: string): EncryptionKey | string {
  const colon = text.indexOf(':');
  if (colon < 0) return `is not ${ENCRYPTION_KEY_FORMAT}`;
  const id = text.slice(0, colon);
  const encoded = text.slice(colon + 1);
  if (!KEY_ID.test(id)) return 'has a key id that is not 1 to 16 of A-Z a-z 0-9 _ -';
  if (!BASE64_OF_32_BYTES.test(encoded)) {
    return 'has a key that is not the base64 of exactly 32 bytes (openssl rand -base64 32 makes one)';
  }
  return Object.freeze({ id, key: Buffer.from(encoded, 'base64') });
}

const signingKey = variable(
  'PAYOPS_SIGNING_KEY',
  secret('PAYOPS_SIGNING_KEY', { hint: `: ${SIGNING_KEY_ADVICE}` })
    .superRefine((value, ctx) => {
      if (value.length < MIN_SIGNING_KEY_LENGTH) {
        ctx.addIssue({
          code: 'custom',
          message: `PAYOPS_SIGNING_KEY must be at least ${MIN_SIGNING_KEY_LENGTH} characters: ${SIGNING_KEY_ADVICE}`,
        });
      } else if (looksHandMade(value)) {
        ctx.addIssue({
          code: 'custom',
          message: `PAYOPS_SIGNING_KEY is not random enough (too few different characters, or a part that repeats or runs in sequence): ${SIGNING_KEY_ADVICE}`,
        });
      }
    })
    .transform((value) => Buffer.from(value, 'utf8')),
  { secret: true, placeholderAdvice: SIGNING_KEY_ADVICE },
);

const encryptionKey = variable(
  'PAYOPS_ENCRYPTION_KEY',
  secret('PAYOPS_ENCRYPTION_KEY', { hint: `: set it to ${ENCRYPTION_KEY_FORMAT}` }).transform(
    (value, ctx) => {
      const key = parseEncryptionKey(value);
      if (typeof key !== 'string') return key;
      ctx.addIssue({ code: 'custom', message: `PAYOPS_ENCRYPTION_KEY ${key}` });
      return z.NEVER;
    },
  ),
  { secret: true, placeholderAdvice: `set it to ${ENCRYPTION_KEY_FORMAT}` },
);

/** Rotated out: they only decrypt what they encrypted before. */
const oldEncryptionKeys = variable(
  'PAYOPS_ENCRYPTION_OLD_KEYS',
  z
    .string()
    .optional()
    .transform((value, ctx): readonly EncryptionKey[] => {
      const keys = listEntries(value ?? '').map(parseEncryptionKey);
      keys.forEach((key, index) => {
        if (typeof key === 'string') {
          ctx.addIssue({
            code: 'custom',
            message: `PAYOPS_ENCRYPTION_OLD_KEYS: entry ${index + 1} ${key}`,
          });
        }
      });
      return Object.freeze(keys.filter((key) => typeof key !== 'string'));
    }),
  { secret: true },
);

export const keys = section(
  {
    /** Keys the fingerprints and the audit chain. */
    signingKey,
    encryption: z.object({ current: encryptionKey, old: oldEncryptionKeys }),
  },
  {
    checks: [
      {
        // Each key's id must tell which key encrypted a value: no two keys may share one.
        needs: ['PAYOPS_ENCRYPTION_KEY', 'PAYOPS_ENCRYPTION_OLD_KEYS'],
        problems(value) {
          const current = value('PAYOPS_ENCRYPTION_KEY') as EncryptionKey;
          const old = value('PAYOPS_ENCRYPTION_OLD_KEYS') as readonly EncryptionKey[];
          const all = [current, ...old];
          return old.flatMap((key, index) => {
            const first = all.findIndex((other) => other.id === key.id);
            if (first === index + 1) return [];
            const other = first === 0 ? 'PAYOPS_ENCRYPTION_KEY' : `entry ${first}`;
            return [
              `PAYOPS_ENCRYPTION_OLD_KEYS: entry ${index + 1} has the same key id as ${other}: give each key an id of its own`,
            ];
          });
        },
      },
    ],
  },
);

/** A fresh signing key and encryption key, for environments that make their own (demo, tests). */
export function generateKeyEnv(): { PAYOPS_SIGNING_KEY: string; PAYOPS_ENCRYPTION_KEY: string } {
  return {
    PAYOPS_SIGNING_KEY: randomBytes(32).toString('base64'),
    PAYOPS_ENCRYPTION_KEY: `k1:${randomBytes(32).toString('base64')}`,
  };
}
