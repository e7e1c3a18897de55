/**
 * `npm run sandbox`: the Payments API sandbox on 127.0.0.1, for rehearsing against the spec.
 * SANDBOX_PORT (default 4010) and SANDBOX_LATENCY_MS (default 0) tune it.
 */
import {
  SANDBOX_BUSINESS,
  SANDBOX_KEY,
  SANDBOX_KEYS,
  type SandboxKey,
  startPaymentsSandbox,
} from '../sandbox/payments-api.ts';

function nonNegativeIntegerFromEnv(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  if (!/^\d+$/.test(raw)) {
    console.error(`${name} must be a non-negative integer, got "${raw}"`);
    process.exit(1);
  }
  return Number(raw);
}

function describeKey(key: SandboxKey): string {
  if (key.legacy) return 'legacy key: 403 API_KEY_SCOPE_REVIEW_REQUIRED';
  if (key.revoked) return 'revoked: 401 invalid or revoked';
  if (key.ineligible) return 'ineligible business: 401 invalid or revoked';
  return key.scopes.join(' + ');
}

const port = nonNegativeIntegerFromEnv('SANDBOX_PORT', 4010);
const latencyMs = nonNegativeIntegerFromEnv('SANDBOX_LATENCY_MS', 0);
const sandbox = await startPaymentsSandbox({ port, host: '127.0.0.1', latencyMs });

const keyWidth = Math.max(...Object.keys(SANDBOX_KEYS).map((key) => key.length));
console.log(`Payments API sandbox listening on ${sandbox.url}`);
if (latencyMs > 0) console.log(`Every response is delayed by ${latencyMs} ms.`);
console.log('\nSeeded API keys (send as X-Api-Key):');
for (const [key, spec] of Object.entries(SANDBOX_KEYS)) {
  console.log(`  ${key.padEnd(keyWidth)}  ${spec.customerId.padEnd(14)}  ${describeKey(spec)}`);
}
console.log('\nEnvironment for payops:');
console.log(`  PAYMENTS_BASE_URL=${sandbox.url}`);
console.log(`  PAYMENTS_API_KEY=${SANDBOX_KEY.full}`);
console.log(`  PAYMENTS_EXPECTED_CUSTOMER_ID=${SANDBOX_BUSINESS.id}`);
console.log('\nCtrl-C to stop.');

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    console.log(`\n${signal}: stopping the sandbox`);
    // Once closed nothing holds the event loop, so the process ends by itself.
    void sandbox.close();
  });
}
