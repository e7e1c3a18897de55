import { readFileSync } from 'node:fs';
import type { App } from '@slack/bolt';
import { beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { AccessControl } from '../../src/app/access.ts';
import { ApprovalWorkflow } from '../../src/app/approvals.ts';
import { ReadService } from '../../src/app/reads.ts';
import { RequestQueries } from '../../src/app/request-queries.ts';
import { generateKeyEnv, loadConfig } from '../../src/config.ts';
import { DEFAULT_POLICY } from '../../src/domain/policy.ts';
import { createLogger } from '../../src/logger.ts';
import { PaymentsClient } from '../../src/payments/client.ts';
import { registerListeners } from '../../src/slack/app.ts';
import { outcomeWords } from '../../src/slack/text/outcomes.ts';
import type { Database } from '../../src/store/database.ts';
import { OutboxStore } from '../../src/store/outbox-store.ts';
import { RequestStore } from '../../src/store/request-store.ts';
import { testCipher, testSigner } from '../helpers/requests.ts';

interface Manifest {
  _metadata: { major_version: number };
  display_information: { name: string; description?: string };
  features: {
    app_home?: { home_tab_enabled?: boolean };
    bot_user: { display_name: string };
    slash_commands: Array<{
      command: string;
      url?: string;
      description: string;
      usage_hint?: string;
    }>;
  };
  oauth_config: { scopes: { bot: string[] } };
  settings: {
    event_subscriptions: { request_url?: string; bot_events: string[] };
    interactivity: { is_enabled: boolean; request_url?: string };
    socket_mode_enabled: boolean;
  };
}

const manifest = parse(readFileSync('manifest.yml', 'utf8')) as Manifest;

/** Registering listeners reads and writes nothing: a store on this database throws if it did. */
function unusedDatabase(): Database {
  const unused = async (): Promise<never> => {
    throw new Error('registering listeners touched the store');
  };
  return {
    engine: 'pglite',
    query: unused,
    exec: unused,
    transaction: unused,
    ping: unused,
    close: unused,
  };
}

/** Registers every listener on a recorder instead of Bolt, to see what the code handles. */
async function registered() {
  const seen = {
    commands: [] as string[],
    events: [] as string[],
    actions: [] as string[],
    views: [] as string[],
  };
  const record = (list: string[]) => (name: unknown) => {
    list.push(String(name));
  };
  const recorder = {
    command: record(seen.commands),
    event: record(seen.events),
    action: record(seen.actions),
    view: record(seen.views),
  } as unknown as App;
  const config = loadConfig({
    PAYMENTS_BASE_URL: 'https://api.example.com/v1',
    PAYMENTS_API_KEY: 'sk_test_manifest',
    PAYMENTS_EXPECTED_CUSTOMER_ID: 'cus_1',
    SLACK_BOT_TOKEN: 'xoxb-manifest',
    SLACK_SIGNING_SECRET: 'manifest-secret',
    PAYOPS_READERS: 'U1234',
    PAYOPS_REQUESTERS: 'U1234',
    PAYOPS_APPROVERS: 'U5678',
    PAYOPS_APPROVALS_CHANNEL: 'C1234',
    ...generateKeyEnv(),
  });
  const logger = createLogger({ level: 'silent', secrets: [] });
  const client = new PaymentsClient({ ...config.payments, logger });
  const access = new AccessControl({ members: async () => [] });
  const db = unusedDatabase();
  const store = new RequestStore(db, testCipher);
  const workflow = new ApprovalWorkflow({
    store,
    client,
    signer: testSigner,
    preflight: 'warn',
    keyScopes: ['read'],
    policy: DEFAULT_POLICY,
    access,
    roles: { requesters: config.approvals.requesters, approvers: config.approvals.approvers },
    instanceId: 'manifest-test',
    leaseMs: 60_000,
    logger,
    outcomeWords: outcomeWords(config.slack.command),
  });
  registerListeners(recorder, {
    slack: config.slack,
    logger,
    identity: { botId: 'B1', botUserId: 'U1', teamId: undefined },
    access,
    reads: new ReadService(client, ['read']),
    workflow,
    queries: new RequestQueries({ store, outbox: new OutboxStore(db) }),
    approvalsChannelId: 'C1234',
    readiness: async () => ({ ready: true, checks: {} }),
    home: { opened: async () => {} },
  });
  return seen;
}

let code: Awaited<ReturnType<typeof registered>>;
beforeAll(async () => {
  code = await registered();
});

describe('manifest.yml', () => {
  it('is a valid version 1 manifest within Slack limits', () => {
    expect(manifest._metadata.major_version).toBe(1);
    expect(manifest.display_information.name.length).toBeLessThanOrEqual(35);
    expect(manifest.features.bot_user.display_name).toBeTruthy();
    for (const command of manifest.features.slash_commands) {
      expect(command.command).toMatch(/^\/[a-z0-9_-]{1,31}$/);
      expect(command.description.length).toBeGreaterThan(0);
    }
  });

  it('declares exactly the slash commands the code registers', () => {
    expect(manifest.features.slash_commands.map((command) => command.command)).toEqual(
      code.commands,
    );
  });

  it('subscribes to exactly the events the code handles', () => {
    expect([...manifest.settings.event_subscriptions.bot_events].sort()).toEqual(
      [...new Set(code.events)].sort(),
    );
    expect(manifest.features.app_home?.home_tab_enabled).toBe(
      code.events.includes('app_home_opened'),
    );
  });

  it('turns interactivity on exactly when the code registers buttons or modals', () => {
    expect(code.actions.length + code.views.length).toBeGreaterThan(0);
    expect(manifest.settings.interactivity.is_enabled).toBe(true);
  });

  it('asks only for the bot scopes the code uses, each with its reason in docs/architecture.md', () => {
    const needed = ['commands'];
    if (code.events.some((event) => event.startsWith('subteam_'))) needed.push('usergroups:read');
    // Approval messages are posted and updated; `/pay audit` uploads a CSV.
    if (code.actions.length > 0) needed.push('chat:write', 'files:write');
    // The outbox looks for a card (or notice) whose post went unanswered before posting again.
    if (code.actions.length > 0) needed.push('channels:history', 'groups:history');
    // The request form's file input, and a supporting document read once with its request.
    if (code.views.length > 0) needed.push('files:read');
    expect([...manifest.oauth_config.scopes.bot].sort()).toEqual(needed.sort());
    const reasons = readFileSync('docs/architecture.md', 'utf8');
    for (const scope of manifest.oauth_config.scopes.bot) expect(reasons).toContain(`\`${scope}\``);
  });

  it('points every request URL at the one Bolt endpoint, in HTTP mode', () => {
    expect(manifest.settings.socket_mode_enabled).toBe(false);
    const urls = [
      ...manifest.features.slash_commands.map((command) => command.url),
      manifest.settings.event_subscriptions.request_url,
      manifest.settings.interactivity.request_url,
    ];
    for (const url of urls) expect(url).toMatch(/^https:\/\/[^/]+\/slack\/events$/);
  });
});
