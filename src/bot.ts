import type { Server } from 'node:http';
import { WebClient } from '@slack/web-api';
import { AccessControl } from './app/access.ts';
import { runFirstChecks } from './app/first-checks.ts';
import { ReadService } from './app/reads.ts';
import type { Config } from './config.ts';
import type { Logger } from './logger.ts';
import { PaymentsClient } from './payments/client.ts';
import { createSlackApp } from './slack/app.ts';
import { resolveBotIdentity, slackGroupDirectory } from './slack/directory.ts';

export interface RunningBot {
  /** The HTTP port Slack requests and health checks reach (also in Socket Mode). */
  port: number | undefined;
  stop(): Promise<void>;
}

/** How long a `/readyz` answer about the provider is reused, so probes do not hammer it. */
const PROVIDER_PROBE_TTL_MS = 5_000;

/**
 * The composition root: config → logger → Payments client → first checks → Slack.
 * Refuses to start unless the provider's first checks pass for the expected business.
 */
export async function startBot(config: Config, logger: Logger): Promise<RunningBot> {
  const payments = new PaymentsClient({ ...config.payments, logger });
  const report = await runFirstChecks(payments, {
    customerId: config.payments.expectedCustomerId,
    scopes: config.payments.expectedScopes,
  });
  if (!report.ok || !report.identity) {
    await payments.close();
    const failed = report.checks.filter((check) => !check.ok);
    throw new StartupRefused(failed.map((check) => `${check.name}: ${check.detail}`).join('\n'));
  }
  logger.info(
    { customerId: report.identity.customerId, scopes: report.identity.scopes },
    'first checks passed',
  );

  const web = new WebClient(config.slack.botToken, {
    ...(config.slack.apiUrl ? { slackApiUrl: config.slack.apiUrl } : {}),
    retryConfig: { retries: 2 },
  });
  const identity = await resolveBotIdentity(web);
  const access = new AccessControl(slackGroupDirectory(web));
  const reads = new ReadService(payments, report.identity.scopes);

  let providerProbe: { at: number; ok: boolean } | undefined;
  const providerReachable = async (): Promise<boolean> => {
    if (providerProbe && Date.now() - providerProbe.at < PROVIDER_PROBE_TTL_MS)
      return providerProbe.ok;
    const ok = await payments.call('health').then(
      () => true,
      () => false,
    );
    providerProbe = { at: Date.now(), ok };
    return ok;
  };

  const app = createSlackApp({
    slack: config.slack,
    logger,
    identity,
    access,
    reads,
    readiness: async () => {
      const checks = { provider: await providerReachable(), slackIdentity: true };
      return { ready: Object.values(checks).every(Boolean), checks };
    },
  });
  const started = (await app.start(config.slack.port)) as Server | undefined;
  const address = started?.address?.();
  const port = typeof address === 'object' && address ? address.port : config.slack.port;
  logger.info(
    { port, mode: config.slack.appToken ? 'socket' : 'http', command: config.slack.command },
    'payops is listening',
  );
  return {
    port,
    async stop() {
      await app.stop();
      await payments.close();
    },
  };
}

export class StartupRefused extends Error {
  constructor(details: string) {
    super(`payops refused to start: the provider's first checks did not pass.\n${details}`);
    this.name = 'StartupRefused';
  }
}
