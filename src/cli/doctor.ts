import { runFirstChecks } from '../app/first-checks.ts';
import { ConfigError, loadPaymentsToolConfig } from '../config.ts';
import { createLogger } from '../logger.ts';
import { PaymentsClient } from '../payments/client.ts';
import { providerErrorText } from '../slack/text/provider-errors.ts';

export const usage = `Usage: payops doctor [--sandbox]

The provider's recommended first checks against the configured Payments API (PAYMENTS_* in the
environment), with a plain report.
  --sandbox  against a bundled sandbox started for the occasion: nothing to configure
Exit codes: 0 all good, 1 a check failed, 2 the configuration is invalid.`;

export const flags: readonly string[] = ['--sandbox'];

export async function run(args: string[]): Promise<number> {
  if (!args.includes('--sandbox')) return doctor(process.env);
  // Loaded only when asked for: a doctor of a real deployment never loads the sandbox.
  const { withPaymentsSandbox } = await import('../rehearsal/sandbox-command.ts');
  return withPaymentsSandbox((sandboxEnv) =>
    doctor({
      ...process.env,
      ...sandboxEnv,
      PAYMENTS_API_KEY_FILE: undefined,
      LOG_LEVEL: process.env.LOG_LEVEL ?? 'warn',
    }),
  );
}

async function doctor(env: Record<string, string | undefined>): Promise<number> {
  let config: ReturnType<typeof loadPaymentsToolConfig>;
  try {
    config = loadPaymentsToolConfig(env);
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    console.error(`payops doctor: ${error.message}`);
    return 2;
  }
  const logger = createLogger({
    level: config.logging.level,
    secrets: [config.payments.apiKey],
    destination: process.stderr,
  });
  const client = new PaymentsClient({ ...config.payments, logger });
  try {
    console.log(`payops doctor: checking ${config.payments.baseUrl}\n`);
    const report = await runFirstChecks(
      client,
      {
        customerId: config.payments.expectedCustomerId,
        scopes: config.payments.expectedScopes,
      },
      providerErrorText,
    );
    for (const check of report.checks) {
      const requestId = check.requestId ? ` [request id ${check.requestId}]` : '';
      console.log(
        `${check.ok ? 'PASS' : 'FAIL'}  ${check.name.padEnd(8)} ${check.detail}${requestId}`,
      );
    }
    console.log('');
    if (report.ok) {
      console.log('All first checks passed.');
      return 0;
    }
    console.log(
      report.stop
        ? 'STOP: this deployment must not be used until the problem above is fixed by an administrator.'
        : 'Some checks failed; fix the problem above and run `payops doctor` again.',
    );
    return 1;
  } finally {
    await client.close();
  }
}
