import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

/**
 * Stored payloads (banking details) encrypted at rest with AES-256-GCM. Each value names the key
 * that sealed it, so keys can be rotated: new values take the current key, old keys only open
 * what they sealed, and `payops store rotate-key` moves every value to the current key.
 */

export interface CipherKey {
  /** Stored with each value: which key opens it. */
  id: string;
  /** 32 bytes. */
  key: Buffer;
}

export interface CipherKeys {
  current: CipherKey;
  old: readonly CipherKey[];
}

const PREFIX = 'enc:v1:';
const IV_BYTES = 12;
const TAG_BYTES = 16;

export class KeyNotConfigured extends Error {
  constructor(keyId: string) {
    super(
      `a stored payload is encrypted with key "${keyId}", which is not configured: add it to PAYOPS_ENCRYPTION_OLD_KEYS (or make it PAYOPS_ENCRYPTION_KEY)`,
    );
    this.name = 'KeyNotConfigured';
  }
}

export class PayloadCipher {
  readonly #current: CipherKey;
  readonly #byId: ReadonlyMap<string, Buffer>;

  constructor(keys: CipherKeys) {
    this.#current = keys.current;
    this.#byId = new Map([keys.current, ...keys.old].map(({ id, key }) => [id, key]));
  }

  get currentKeyId(): string {
    return this.#current.id;
  }

  /** `enc:v1:<keyId>:<base64 of iv, tag, ciphertext>`. */
  seal(plain: string): string {
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', this.#current.key, iv);
    const sealed = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
    const packed = Buffer.concat([iv, cipher.getAuthTag(), sealed]).toString('base64');
    return `${PREFIX}${this.#current.id}:${packed}`;
  }

  /**
   * The plain text of a stored value. A value stored before encryption is returned as it is;
   * one whose key is not configured, or that was altered, is an error, never a guess.
   */
  open(stored: string): string {
    const keyId = keyIdOf(stored);
    if (keyId === undefined) return stored;
    const key = this.#byId.get(keyId);
    if (!key) throw new KeyNotConfigured(keyId);
    const packed = Buffer.from(stored.slice(PREFIX.length + keyId.length + 1), 'base64');
    const decipher = createDecipheriv('aes-256-gcm', key, packed.subarray(0, IV_BYTES));
    decipher.setAuthTag(packed.subarray(IV_BYTES, IV_BYTES + TAG_BYTES));
    return Buffer.concat([
      decipher.update(packed.subarray(IV_BYTES + TAG_BYTES)),
      decipher.final(),
    ]).toString('utf8');
  }

  /** Whether a stored value is plain, or sealed with another key than the current one. */
  needsRotation(stored: string): boolean {
    return keyIdOf(stored) !== this.#current.id;
  }
}

function keyIdOf(stored: string): string | undefined {
  if (!stored.startsWith(PREFIX)) return undefined;
  const end = stored.indexOf(':', PREFIX.length);
  return end === -1 ? undefined : stored.slice(PREFIX.length, end);
}
