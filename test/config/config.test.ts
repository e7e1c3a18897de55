import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ConfigError,
  generateKeyEnv,
  loadConfig,
  loadPaymentsToolConfig,
  loadPolicy,
  loadStoreToolConfig,
  secretsOf,
} from '../../src/config.ts';
import { DEFAULT_POLICY, PolicyError } from '../../src/domain/policy.ts';

const valid = {
  PAYMENTS_BASE_URL: 'https://api.example.com/v1',
  PAYMENTS_API_KEY: 'sk_live_abcdef123456',
  PAYMENTS_EXPECTED_CUSTOMER_ID: 'cus_123',
};

type Env = Record<string, string | undefined>;

/** What `load` (doctor's configuration by default) finds wrong with `env`. */
function problems(env: Env, load: (env: Env) => unknown = loadPaymentsToolConfig): string[] {
  try {
    load(env);
  } catch (error) {
    if (error instanceof ConfigError) return error.problems;
    throw error;
  }
  return [];
}

describe('payments configuration', () => {
  it('applies the documented defaults to a minimal valid environment', () => {
    const config = loadPaymentsToolConfig(valid);
    expect(config.payments).toMatchObject({
      baseUrl: 'https://api.example.com/v1',
      expectedCustomerId: 'cus_123',
      expectedScopes: undefined,
      readTimeoutMs: 10_000,
      writeTimeoutMs: 30_000,
      maxInFlight: 16,
    });
    expect(config.logging.level).toBe('info');
    expect(Object.isFrozen(config.payments)).toBe(true);
  });

  it('reports every problem at once, in plain words, naming each variable', () => {
    const found = problems({
      PAYMENTS_BASE_URL: 'http://api.example.com/v2',
      PAYMENTS_API_KEY: undefined,
      PAYMENTS_EXPECTED_CUSTOMER_ID: '   ',
      PAYMENTS_EXPECTED_SCOPES: 'read,payments:wrte',
      PAYMENTS_TIMEOUT_MS: 'ten',
      LOG_LEVEL: 'loud',
    });
    expect(found).toEqual(
      expect.arrayContaining([
        'PAYMENTS_BASE_URL must end in /v1',
        'PAYMENTS_BASE_URL must use https:// (plain http:// is allowed only for a loopback sandbox)',
        'PAYMENTS_API_KEY is missing',
        'PAYMENTS_EXPECTED_CUSTOMER_ID is empty',
        'PAYMENTS_EXPECTED_SCOPES: entry 2 is not among the known scopes: read, resources:write, payments:write',
        'PAYMENTS_TIMEOUT_MS must be a whole number',
        'LOG_LEVEL must be one of fatal, error, warn, info, debug, trace, silent',
      ]),
    );
    expect(found).toHaveLength(7);
  });

  it('reports contradictory settings', () => {
    expect(
      problems({ ...valid, PAYMENTS_TIMEOUT_MS: '20000', PAYMENTS_WRITE_TIMEOUT_MS: '5000' }),
    ).toEqual(['PAYMENTS_WRITE_TIMEOUT_MS must not be shorter than PAYMENTS_TIMEOUT_MS']);
    expect(problems({ ...valid, PAYMENTS_EXPECTED_SCOPES: 'payments:write' })).toEqual([
      'PAYMENTS_EXPECTED_SCOPES must include read: every authenticated operation needs it',
    ]);
  });

  it('allows plain http only for loopback hosts', () => {
    for (const url of [
      'http://127.0.0.1:4010/v1',
      'http://localhost:4010/v1/',
      'http://[::1]:1/v1',
    ]) {
      expect(problems({ ...valid, PAYMENTS_BASE_URL: url })).toEqual([]);
    }
    expect(problems({ ...valid, PAYMENTS_BASE_URL: 'http://10.0.0.5/v1' })).toHaveLength(1);
  });

  it('never echoes a secret or a URL credential in its messages', () => {
    const key = 'sk_live_do not leak';
    const error = (() => {
      try {
        loadPaymentsToolConfig({
          ...valid,
          PAYMENTS_API_KEY: key,
          PAYMENTS_BASE_URL: 'https://user:hunter22@api.example.com/v1',
        });
      } catch (caught) {
        return caught as ConfigError;
      }
      throw new Error('expected a ConfigError');
    })();
    expect(error.problems).toEqual([
      'PAYMENTS_BASE_URL must not contain credentials',
      'PAYMENTS_API_KEY contains white space (a copy-paste slip?)',
    ]);
    expect(error.message).not.toContain('do not leak');
    expect(error.message).not.toContain('hunter22');
  });

  it('normalises expected scopes to the canonical order', () => {
    const config = loadPaymentsToolConfig({
      ...valid,
      PAYMENTS_EXPECTED_SCOPES: ' payments:write , read ',
    });
    expect(config.payments.expectedScopes).toEqual(['read', 'payments:write']);
  });
});

const KEYS = generateKeyEnv();
const OTHER_KEY = `k2:${randomBytes(32).toString('base64')}`;

const bot = {
  ...valid,
  SLACK_BOT_TOKEN: 'xoxb-test-token',
  SLACK_SIGNING_SECRET: 'signing-secret-test',
  PAYOPS_READERS: 'U0ALICE,S0APPROVERS',
  PAYOPS_REQUESTERS: 'U0ALICE',
  PAYOPS_APPROVERS: 'S0APPROVERS',
  PAYOPS_APPROVALS_CHANNEL: 'C0APPROVALS',
  ...KEYS,
};

const botProblems = (env: Env) => problems(env, loadConfig);

let folder: string;
beforeAll(() => {
  folder = mkdtempSync(join(tmpdir(), 'payops-config-'));
});
afterAll(() => rmSync(folder, { recursive: true, force: true }));

/** A secret file as Docker or Kubernetes mounts one; its path. */
function secretFile(name: string, content: string): string {
  const path = join(folder, name);
  writeFileSync(path, content);
  return path;
}

describe('secrets read from files (<NAME>_FILE)', () => {
  const secrets = {
    PAYMENTS_API_KEY: 'sk_live_from_a_file',
    SLACK_BOT_TOKEN: 'xoxb-from-a-file',
    SLACK_SIGNING_SECRET: 'signing-secret-from-a-file',
    SLACK_APP_TOKEN: 'xapp-from-a-file',
    DATABASE_URL: 'postgres://payops:file%23secret@db.internal:5432/payops',
    PAYOPS_SIGNING_KEY: generateKeyEnv().PAYOPS_SIGNING_KEY,
    PAYOPS_ENCRYPTION_KEY: generateKeyEnv().PAYOPS_ENCRYPTION_KEY,
    PAYOPS_ENCRYPTION_OLD_KEYS: OTHER_KEY,
  };

  it('reads every secret from its file, less one trailing newline', () => {
    const env: Env = { ...bot };
    for (const [name, value] of Object.entries(secrets)) {
      env[name] = undefined;
      env[`${name}_FILE`] = secretFile(name, `${value}${name === 'DATABASE_URL' ? '\r\n' : '\n'}`);
    }
    const config = loadConfig(env);
    expect(config.payments.apiKey).toBe(secrets.PAYMENTS_API_KEY);
    expect(config.slack).toMatchObject({
      botToken: secrets.SLACK_BOT_TOKEN,
      signingSecret: secrets.SLACK_SIGNING_SECRET,
      appToken: secrets.SLACK_APP_TOKEN,
    });
    expect(config.store.databaseUrl).toBe(secrets.DATABASE_URL);
    expect(config.signingKey.toString()).toBe(secrets.PAYOPS_SIGNING_KEY);
    expect(config.encryption.current.key.toString('base64')).toBe(
      secrets.PAYOPS_ENCRYPTION_KEY.slice('k1:'.length),
    );
    expect(config.encryption.old.map((key) => key.id)).toEqual(['k2']);
    expect(secretsOf(config)).toContain('file#secret');
  });

  it('reads the API key from its file for doctor too', () => {
    const config = loadPaymentsToolConfig({
      ...valid,
      PAYMENTS_API_KEY: undefined,
      PAYMENTS_API_KEY_FILE: secretFile('api-key', 'sk_live_doctor\n'),
    });
    expect(config.payments.apiKey).toBe('sk_live_doctor');
  });

  it('refuses a secret set both ways, naming both variables and neither value', () => {
    const path = secretFile('token', 'xoxb-in-the-file\n');
    const found = botProblems({ ...bot, SLACK_BOT_TOKEN_FILE: path });
    expect(found).toEqual([
      'SLACK_BOT_TOKEN and SLACK_BOT_TOKEN_FILE are both set: set only one of them',
    ]);
  });

  it('names the variable and the path of a file it cannot read, and nothing else about it', () => {
    const missing = join(folder, 'not-there');
    const found = botProblems({
      ...bot,
      PAYMENTS_API_KEY: undefined,
      PAYMENTS_API_KEY_FILE: missing,
      PAYOPS_SIGNING_KEY: undefined,
      PAYOPS_SIGNING_KEY_FILE: folder,
    });
    expect(found).toEqual([
      `PAYMENTS_API_KEY_FILE: the file ${missing} cannot be read (ENOENT)`,
      `PAYOPS_SIGNING_KEY_FILE: the file ${folder} cannot be read (EISDIR)`,
    ]);
  });

  it("never quotes a file's content when the secret in it is wrong", () => {
    const found = botProblems({
      ...bot,
      SLACK_BOT_TOKEN: undefined,
      SLACK_BOT_TOKEN_FILE: secretFile('user-token', 'xoxp-a-user-token\n'),
      PAYOPS_SIGNING_KEY: undefined,
      PAYOPS_SIGNING_KEY_FILE: secretFile('short-key', 'too short a key\n'),
    });
    expect(found).toEqual([
      'SLACK_BOT_TOKEN must be a bot token (it starts with xoxb-)',
      'PAYOPS_SIGNING_KEY contains white space (a copy-paste slip?)',
      'PAYOPS_SIGNING_KEY must be at least 32 characters: generate one with openssl rand -base64 32',
    ]);
  });
});

describe('DATABASE_URL', () => {
  const password = 'pa#ss/w0rd';

  it.each([
    ['an unencoded #', 'postgres://payops:hun#ter2@db.internal:5432/payops'],
    ['an unencoded /', 'postgres://payops:hun/ter2@db.internal:5432/payops'],
    ['an unencoded ?', 'postgres://payops:hun?ter2@db.internal:5432/payops'],
  ])('with %s in the password is refused, saying how to encode it, never quoting it', (_, url) => {
    const found = botProblems({ ...bot, DATABASE_URL: url });
    expect(found).toEqual([
      'DATABASE_URL is not a valid URL: percent-encode special characters in the user name and password, such as # / ? @ : as %23 %2F %3F %40 %3A',
    ]);
    expect(found.join('\n')).not.toMatch(/hun|ter2|db\.internal/);
  });

  it('with a % that starts no percent-encoding is refused without quoting it', () => {
    const found = botProblems({ ...bot, DATABASE_URL: 'postgres://payops:100%sure@db/payops' });
    expect(found).toEqual([
      'DATABASE_URL has a % that starts no valid percent-encoding in its user name or password: write a literal % as %25',
    ]);
  });

  it('of another kind of database is refused', () => {
    expect(botProblems({ ...bot, DATABASE_URL: 'mysql://payops:secret@db/payops' })).toEqual([
      'DATABASE_URL must be a postgres:// URL (leave it unset for the embedded store)',
    ]);
  });

  it('gives the logger its password in every spelling, and accepts a socket without a host', () => {
    const config = loadConfig({
      ...bot,
      DATABASE_URL: 'postgres://payops:pa%23ss%2Fw0rd@/payops?host=/var/run/postgresql',
    });
    expect(secretsOf(config)).toEqual(expect.arrayContaining(['pa%23ss%2Fw0rd', password]));
    const inQuery = loadConfig({
      ...bot,
      DATABASE_URL: 'postgresql://db.internal/payops?user=payops&password=query-secret',
    });
    expect(secretsOf(inQuery)).toContain('query-secret');
  });
});

describe('the policy file (PAYOPS_POLICY_FILE)', () => {
  const folder = mkdtempSync(join(tmpdir(), 'payops-policy-'));
  afterAll(() => rmSync(folder, { recursive: true, force: true }));

  it('is optional: without one, the default policy', () => {
    expect(loadPolicy(undefined)).toBe(DEFAULT_POLICY);
    expect(loadPolicy('  ')).toBe(DEFAULT_POLICY);
  });

  it('is read as JSON as well as YAML', () => {
    const json = join(folder, 'policy.json');
    writeFileSync(json, JSON.stringify({ default_approvals: 2, rules: [] }));
    expect(loadPolicy(json)).toEqual({ defaultApprovals: 2, expiryHours: 24, rules: [] });
    const yaml = join(folder, 'policy.yaml');
    writeFileSync(yaml, 'rules:\n  - operations: [payout]\n    approvals: 2\n');
    expect(loadPolicy(yaml).rules).toHaveLength(1);
  });

  it('is refused when it cannot be read, naming the file', () => {
    const missing = join(folder, 'no-such-policy.yaml');
    expect(() => loadPolicy(missing)).toThrow(`Policy file ${missing} is invalid`);
    expect(() => loadPolicy(missing)).toThrow(
      expect.objectContaining({
        constructor: PolicyError,
        problems: ['PAYOPS_POLICY_FILE cannot be read (ENOENT)'],
      }),
    );
  });
});

describe('every problem at once', () => {
  it('lists a missing policy file and a lease too short beside the problems of other sections', () => {
    const missing = join(folder, 'no-policy-here.yaml');
    expect(
      botProblems({
        ...bot,
        SLACK_BOT_TOKEN: 'xoxp-a-user-token',
        PAYOPS_POLICY_FILE: missing,
        PAYOPS_EXECUTION_LEASE_MS: '10000',
        PAYOPS_FOLLOW_FOR: '7 days',
      }),
    ).toEqual([
      'SLACK_BOT_TOKEN must be a bot token (it starts with xoxb-)',
      'PAYOPS_POLICY_FILE cannot be read (ENOENT)',
      'PAYOPS_FOLLOW_FOR must be a duration such as 30m, 2h or 1d (a whole number and s, m, h or d)',
      'PAYOPS_EXECUTION_LEASE_MS must be at least PAYMENTS_WRITE_TIMEOUT_MS + 500 ms',
    ]);
  });

  it('names the policy file whose rules are wrong', () => {
    const policy = join(folder, 'bad-policy.yaml');
    writeFileSync(policy, 'rules:\n  - approvals: many\n');
    const found = botProblems({ ...bot, PAYOPS_POLICY_FILE: policy });
    expect(found.length).toBeGreaterThan(0);
    for (const problem of found) expect(problem).toMatch(`PAYOPS_POLICY_FILE ${policy}: `);
  });

  it('says of each missing role list who it names', () => {
    expect(
      botProblems({
        ...bot,
        PAYOPS_READERS: undefined,
        PAYOPS_REQUESTERS: undefined,
        PAYOPS_APPROVERS: ' ',
      }),
    ).toEqual([
      'PAYOPS_READERS is missing: list the Slack user IDs (U…) or user group IDs (S…) who may use payops',
      'PAYOPS_REQUESTERS is missing: list the Slack user IDs (U…) or user group IDs (S…) who may request writes',
      'PAYOPS_APPROVERS is missing: list the Slack user IDs (U…) or user group IDs (S…) who may approve, reject and freeze requests',
    ]);
  });
});

describe('lists', () => {
  it('name a bad entry by its position, in grammatical English, never quoting it', () => {
    const found = botProblems({
      ...bot,
      PAYOPS_READERS: 'U0ALICE,alice@example.com',
      PAYOPS_APPROVERS: 'bob,S0APPROVERS,#approvers',
      PAYOPS_CHANNELS: 'C0PAYOPS,payops,general,#ops',
    });
    expect(found).toEqual([
      'PAYOPS_READERS: entry 2 is neither a user ID (U…/W…) nor a user group ID (S…)',
      'PAYOPS_CHANNELS: entries 2, 3 and 4 are not shaped like a channel ID (C…, G… or D…)',
      'PAYOPS_APPROVERS: entries 1 and 3 are neither a user ID (U…/W…) nor a user group ID (S…)',
    ]);
  });
});

describe('signing and encryption keys', () => {
  it('exposes the signing key and the encryption keys as bytes, with their ids', () => {
    const config = loadConfig({ ...bot, PAYOPS_ENCRYPTION_OLD_KEYS: ` ${OTHER_KEY} , ` });
    expect(config.signingKey).toEqual(Buffer.from(KEYS.PAYOPS_SIGNING_KEY));
    expect(config.encryption.current).toEqual({
      id: 'k1',
      key: Buffer.from(KEYS.PAYOPS_ENCRYPTION_KEY.slice(3), 'base64'),
    });
    expect(config.encryption.current.key).toHaveLength(32);
    expect(config.encryption.old).toEqual([
      { id: 'k2', key: Buffer.from(OTHER_KEY.slice(3), 'base64') },
    ]);
    expect(Object.isFrozen(config.encryption)).toBe(true);
    expect(secretsOf(config)).toEqual(
      expect.arrayContaining([
        KEYS.PAYOPS_SIGNING_KEY,
        KEYS.PAYOPS_ENCRYPTION_KEY.slice(3),
        OTHER_KEY.slice(3),
      ]),
    );
  });

  it('are both required to run the bot, each saying how to make one', () => {
    expect(
      botProblems({ ...bot, PAYOPS_SIGNING_KEY: undefined, PAYOPS_ENCRYPTION_KEY: undefined }),
    ).toEqual([
      'PAYOPS_SIGNING_KEY is missing: generate one with openssl rand -base64 32',
      'PAYOPS_ENCRYPTION_KEY is missing: set it to <keyId>:<base64 of 32 bytes>, e.g. k1:$(openssl rand -base64 32)',
    ]);
  });

  it('refuses malformed keys, saying what is wrong without quoting them', () => {
    const key = randomBytes(32).toString('base64');
    const found = botProblems({
      ...bot,
      PAYOPS_SIGNING_KEY: 'x'.repeat(31),
      PAYOPS_ENCRYPTION_KEY: key,
      PAYOPS_ENCRYPTION_OLD_KEYS: `old:${randomBytes(16).toString('base64')},key id!:${key},ok:${key}`,
    });
    expect(found).toEqual([
      'PAYOPS_SIGNING_KEY must be at least 32 characters: generate one with openssl rand -base64 32',
      'PAYOPS_ENCRYPTION_KEY is not <keyId>:<base64 of 32 bytes>, e.g. k1:$(openssl rand -base64 32)',
      'PAYOPS_ENCRYPTION_OLD_KEYS: entry 1 has a key that is not the base64 of exactly 32 bytes (openssl rand -base64 32 makes one)',
      'PAYOPS_ENCRYPTION_OLD_KEYS: entry 2 has a key id that is not 1 to 16 of A-Z a-z 0-9 _ -',
    ]);
    expect(found.join('\n')).not.toContain(key);
  });

  it('refuses a signing key made by hand, long as it is, without quoting it', () => {
    const handMade = [
      'a'.repeat(44),
      'passwordpasswordpasswordpassword',
      'abcdefghijklmnopqrstuvwxyzABCDEFGH',
      'Tr0ub4dor&3-Tr0ub4dor&3-Tr0ub4dor&3',
      '0101201230123401234501234560123456701234567',
    ];
    for (const key of handMade) {
      const found = botProblems({ ...bot, PAYOPS_SIGNING_KEY: key });
      expect(found, key).toEqual([
        'PAYOPS_SIGNING_KEY is not random enough (too few different characters, or a part that repeats or runs in sequence): generate one with openssl rand -base64 32',
      ]);
    }
    // What openssl rand -base64 32 and -hex 32 print, and a long passphrase, are accepted.
    for (let draw = 0; draw < 200; draw++) {
      expect(
        botProblems({ ...bot, PAYOPS_SIGNING_KEY: randomBytes(32).toString('base64') }),
      ).toEqual([]);
      expect(botProblems({ ...bot, PAYOPS_SIGNING_KEY: randomBytes(32).toString('hex') })).toEqual(
        [],
      );
    }
    expect(
      botProblems({ ...bot, PAYOPS_SIGNING_KEY: 'violet-tractor-harbour-ninety-sleepy-quartz' }),
    ).toEqual([]);
  });

  it('refuses two keys with one id: the id tells which key decrypts a value', () => {
    const again = `k2:${randomBytes(32).toString('base64')}`;
    const reused = `k1:${randomBytes(32).toString('base64')}`;
    expect(
      botProblems({ ...bot, PAYOPS_ENCRYPTION_OLD_KEYS: `${OTHER_KEY},${reused},${again}` }),
    ).toEqual([
      'PAYOPS_ENCRYPTION_OLD_KEYS: entry 2 has the same key id as PAYOPS_ENCRYPTION_KEY: give each key an id of its own',
      'PAYOPS_ENCRYPTION_OLD_KEYS: entry 3 has the same key id as entry 1: give each key an id of its own',
    ]);
  });
});

describe('PAYOPS_REQUIRE_PURPOSE', () => {
  const required = (env: Env) => [...loadConfig(env).slack.requirePurpose].sort();

  it('requires a purpose of payouts and transfers unless set; none requires none', () => {
    expect(required(bot)).toEqual(['createCryptoTransfer', 'createPayout', 'createTransfer']);
    expect(required({ ...bot, PAYOPS_REQUIRE_PURPOSE: ' ' })).toEqual(required(bot));
    expect(required({ ...bot, PAYOPS_REQUIRE_PURPOSE: 'None' })).toEqual([]);
  });

  it('reads the command words of money-moving writes, in any case', () => {
    expect(required({ ...bot, PAYOPS_REQUIRE_PURPOSE: 'Payout, offramp-route' })).toEqual([
      'createOfframpRoute',
      'createPayout',
    ]);
  });

  it('refuses a word that is not a money-moving write, saying which entry and what it takes', () => {
    expect(
      botProblems({ ...bot, PAYOPS_REQUIRE_PURPOSE: 'payout,create-wallet,none,payouts' }),
    ).toEqual([
      'PAYOPS_REQUIRE_PURPOSE: entries 2, 3 and 4 are not the command word of a money-moving write (transfer, crypto-transfer, payment-route, offramp-route, payout); none, alone, requires no purpose',
    ]);
  });
});

describe('PAYOPS_REMIND_AFTER', () => {
  it('is 2 hours unless set, and reads s, m, h and d', () => {
    expect(loadConfig(bot).approvals.remindAfterMs).toBe(7_200_000);
    expect(loadConfig({ ...bot, PAYOPS_REMIND_AFTER: '30m' }).approvals.remindAfterMs).toBe(
      1_800_000,
    );
    expect(loadConfig({ ...bot, PAYOPS_REMIND_AFTER: ' 1d ' }).approvals.remindAfterMs).toBe(
      86_400_000,
    );
  });

  it('refuses what is not a duration, or one out of bounds, saying what it takes', () => {
    for (const value of ['2', '2 h', '1.5h', '2w', '-1h']) {
      expect(botProblems({ ...bot, PAYOPS_REMIND_AFTER: value })).toEqual([
        'PAYOPS_REMIND_AFTER must be a duration such as 30m, 2h or 1d (a whole number and s, m, h or d)',
      ]);
    }
    expect(botProblems({ ...bot, PAYOPS_REMIND_AFTER: '8d' })).toEqual([
      'PAYOPS_REMIND_AFTER must be between 1s and 7d',
    ]);
    expect(botProblems({ ...bot, PAYOPS_REMIND_AFTER: '0s' })).toEqual([
      'PAYOPS_REMIND_AFTER must be between 1s and 7d',
    ]);
  });
});

describe('following submitted writes', () => {
  it('defaults to the usual success and failure statuses, seven days, a 60-day return window and a read a minute', () => {
    const { follow } = loadConfig(bot);
    expect([...follow.statuses.success]).toEqual(['completed', 'settled', 'paid']);
    expect([...follow.statuses.failure]).toEqual(
      expect.arrayContaining(['failed', 'returned', 'reversed', 'canceled', 'cancelled']),
    );
    expect(follow.forMs).toBe(7 * 24 * 3_600_000);
    expect(follow.returnWindowMs).toBe(60 * 24 * 3_600_000);
    expect(follow.intervalMs).toBe(60_000);
  });

  it('reads statuses case-insensitively and durations in days, hours, minutes or seconds', () => {
    const { follow } = loadConfig({
      ...bot,
      PAYOPS_SUCCESS_STATUSES: ' Completed , paid out ',
      PAYOPS_FAILURE_STATUSES: 'FUNDS_RETURNED,failed',
      PAYOPS_RETURN_WINDOW: '90d',
      PAYOPS_FOLLOW_FOR: '36h',
      PAYOPS_FOLLOW_INTERVAL_MS: '5000',
    });
    expect([...follow.statuses.success]).toEqual(['completed', 'paid out']);
    expect([...follow.statuses.failure]).toEqual(['funds_returned', 'failed']);
    expect(follow.returnWindowMs).toBe(90 * 24 * 3_600_000);
    expect(follow.forMs).toBe(36 * 3_600_000);
    expect(follow.intervalMs).toBe(5_000);
    expect(loadConfig({ ...bot, PAYOPS_FOLLOW_FOR: '30m' }).follow.forMs).toBe(1_800_000);
  });

  it('refuses what it cannot read, saying what it wants', () => {
    expect(
      botProblems({
        ...bot,
        PAYOPS_FAILURE_STATUSES: 'failed,<!channel>',
        PAYOPS_FOLLOW_FOR: '7 days',
        PAYOPS_FOLLOW_INTERVAL_MS: '1m',
      }),
    ).toEqual([
      'PAYOPS_FAILURE_STATUSES: entry 2 is not a status word (letters, digits, spaces, _ . -; at most 64 characters)',
      'PAYOPS_FOLLOW_FOR must be a duration such as 30m, 2h or 1d (a whole number and s, m, h or d)',
      'PAYOPS_FOLLOW_INTERVAL_MS must be a whole number',
    ]);
    expect(botProblems({ ...bot, PAYOPS_SUCCESS_STATUSES: ' , ' })).toEqual([
      'PAYOPS_SUCCESS_STATUSES names no status: list the provider statuses after which the money reached its destination, e.g. completed,paid',
    ]);
    expect(
      botProblems({
        ...bot,
        PAYOPS_RETURN_WINDOW: '181d',
      }),
    ).toEqual(['PAYOPS_RETURN_WINDOW must be between 1m and 180d']);
    expect(botProblems({ ...bot, PAYOPS_SUCCESS_STATUSES: 'completed,Returned' })).toEqual([
      'PAYOPS_SUCCESS_STATUSES and PAYOPS_FAILURE_STATUSES both list returned: a status is a success or a failure, not both',
    ]);
    expect(botProblems({ ...bot, PAYOPS_FOLLOW_FOR: '91d' })).toHaveLength(1);
  });

  it('refuses a follow-up period under a minute', () => {
    expect(botProblems({ ...bot, PAYOPS_FOLLOW_FOR: '10s' })).toHaveLength(1);
  });
});

describe(".env.example's placeholders", () => {
  const example = readFileSync(new URL('../../.env.example', import.meta.url), 'utf8');
  /** Each `NAME=value` it shows; an inline comment after white space is not part of the value. */
  const shown = [...example.matchAll(/^(#\s*)?([A-Z][A-Z0-9_]*)=(\S*)/gm)].map(
    ([, commented, name = '', value = '']) => ({ name, value, commented: commented !== undefined }),
  );
  const set = shown.filter(({ commented }) => !commented);
  const placeholderProblem = (name: string) =>
    expect.stringMatching(new RegExp(`^${name}\\b(?=.*placeholder)(?=.*\\.env\\.example)`));

  it('are each refused, naming the variable and never quoting the value', () => {
    expect(set.length).toBeGreaterThan(10);
    for (const { name, value } of set) {
      const found = botProblems({ ...bot, [name]: value });
      expect(found, `${name}=${value}`).toEqual([placeholderProblem(name)]);
      expect(found.join('\n')).not.toContain(value);
    }
  });

  it('copied as they are, start nothing: every one is named, by the bot and by the tools', () => {
    const copied = Object.fromEntries(set.map(({ name, value }) => [name, value]));
    expect(botProblems(copied)).toEqual(set.map(({ name }) => placeholderProblem(name)));
    const payments = set.filter(({ name }) => name.startsWith('PAYMENTS_'));
    expect(problems(copied)).toEqual(payments.map(({ name }) => placeholderProblem(name)));
    expect(problems(copied, loadStoreToolConfig)).toEqual([
      placeholderProblem('PAYOPS_SIGNING_KEY'),
      placeholderProblem('PAYOPS_ENCRYPTION_KEY'),
    ]);
  });

  it('that it shows commented out are refused too; its other values work as they are', () => {
    const commented = shown.filter((line) => line.commented);
    expect(commented.length).toBeGreaterThan(10);
    const refused = commented.filter(({ name, value }) => {
      const found = botProblems({ ...bot, [name]: value });
      expect(found, `${name}=${value}`).toEqual(found.length ? [placeholderProblem(name)] : []);
      return found.length > 0;
    });
    expect(refused.map(({ name }) => name)).toEqual([
      'SLACK_APP_TOKEN',
      'PAYOPS_CHANNELS',
      'PAYOPS_ENCRYPTION_OLD_KEYS',
      'DATABASE_URL',
    ]);
  });

  it('are recognised in a list entry by entry', () => {
    expect(botProblems({ ...bot, PAYOPS_APPROVERS: 'S0APPROVERS, U0123ABCD, S0123ABCD' })).toEqual([
      'PAYOPS_APPROVERS: entries 2 and 3 are from .env.example, whose IDs are placeholders: put the real IDs instead',
    ]);
  });
});
