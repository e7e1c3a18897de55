import { generateKeyEnv } from '../config.ts';
import {
  type PaymentsSandbox,
  SANDBOX_BUSINESS,
  SANDBOX_KEY,
  SANDBOX_KEYS,
  type SandboxKey,
  startPaymentsSandbox,
} from '../sandbox/payments-api.ts';

export const usage = `Usage: payops sandbox

The Payments API sandbox on 127.0.0.1, for rehearsing against the spec; it prints its seeded
keys and an environment for payops. Ctrl-C stops it.
  SANDBOX_PORT        its port (default 4010)
  SANDBOX_LATENCY_MS  a delay added to every response (default 0)`;

export const flags: readonly string[] = [];

/** The environment that points payops's Payments client at `sandbox`, with its seeded key. */
function paymentsEnvOf(sandbox: PaymentsSandbox) {
  return {
    PAYMENTS_BASE_URL: sandbox.url,
    PAYMENTS_API_KEY: SANDBOX_KEY.full,
    PAYMENTS_EXPECTED_CUSTOMER_ID: SANDBOX_BUSINESS.id,
  };
}

/** `use` run against a sandbox started for it (`payops doctor --sandbox`), closed after. */
export async function withPaymentsSandbox<T>(
  use: (env: ReturnType<typeof paymentsEnvOf>) => Promise<T>,
): Promise<T> {
  const sandbox = await startPaymentsSandbox();
  try {
    return await use(paymentsEnvOf(sandbox));
  } finally {
    await sandbox.close();
  }
}

function nonNegativeIntegerFromEnv(name: string, fallback: number): number | string {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  if (!/^\d+$/.test(raw)) return `${name} must be a non-negative integer`;
  return Number(raw);
}

function describeKey(key: SandboxKey): string {
  if (key.legacy) return 'legacy key: 403 API_KEY_SCOPE_REVIEW_REQUIRED';
  if (key.revoked) return 'revoked: 401 invalid or revoked';
  if (key.ineligible) return 'ineligible business: 401 invalid or revoked';
  return key.scopes.join(' + ');
}

/** Starts the sandbox and returns once it listens; SIGINT/SIGTERM close it. */
export async function run(): Promise<number> {
  const port = nonNegativeIntegerFromEnv('SANDBOX_PORT', 4010);
  const latencyMs = nonNegativeIntegerFromEnv('SANDBOX_LATENCY_MS', 0);
  if (typeof port === 'string' || typeof latencyMs === 'string') {
    const problems = [port, latencyMs].filter((value) => typeof value === 'string');
    console.error(`payops sandbox: ${problems.join('; ')}`);
    return 2;
  }
  const sandbox = await startPaymentsSandbox({ port, host: '127.0.0.1', latencyMs });

  const keyWidth = Math.max(...Object.keys(SANDBOX_KEYS).map((key) => key.length));
  console.log(`Payments API sandbox listening on ${sandbox.url}`);
  if (latencyMs > 0) console.log(`Every response is delayed by ${latencyMs} ms.`);
  console.log('\nSeeded API keys (send as X-Api-Key):');
  for (const [key, spec] of Object.entries(SANDBOX_KEYS)) {
    console.log(`  ${key.padEnd(keyWidth)}  ${spec.customerId.padEnd(14)}  ${describeKey(spec)}`);
  }
  console.log('\nEnvironment for payops (its keys made for this sandbox only):');
  const env = { ...paymentsEnvOf(sandbox), ...generateKeyEnv() };
  for (const [name, value] of Object.entries(env)) console.log(`  ${name}=${value}`);
  console.log('\nCtrl-C to stop.');

  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.once(signal, () => {
      console.log(`\n${signal}: stopping the sandbox`);
      // Once closed nothing holds the event loop, so the process ends by itself.
      void sandbox.close();
    });
  }
  return 0;
}
