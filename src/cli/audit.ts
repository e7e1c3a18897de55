import { Signer } from '../domain/signer.ts';
import { verifyAuditChain } from '../store/audit-chain.ts';
import { withStore } from './store-tool.ts';

export const usage = `Usage: payops audit verify

Checks the whole audit log's hash chain with PAYOPS_SIGNING_KEY: every row's seal and its link to
the row before. Names each row edited, deleted or inserted, and prints the chain's head (its last
position and seal): keep it somewhere else, to tell later that no rows were cut from the end.
Exit codes: 0 intact, 1 tampered with, 2 the configuration is invalid, 3 the store could not
be read, or there is none where the configuration says (nothing was checked; none is created).`;

export const flags: readonly string[] = ['verify'];

export async function run(args: string[]): Promise<number> {
  if (!args.includes('verify')) {
    console.error(usage);
    return 2;
  }
  return withStore('audit verify', async (db, config) => {
    const result = await verifyAuditChain(db, new Signer(config.signingKey).auditKey);
    const head = `head: position ${result.head.seq}, seal ${result.head.hash || '(empty)'}`;
    if (result.ok) {
      console.log(`audit log intact: ${result.rows} rows, every seal and link checked; ${head}`);
      return 0;
    }
    console.log(`audit log TAMPERED WITH (${result.rows} rows read; ${head}):`);
    for (const problem of result.problems) console.log(`  - ${problem}`);
    return 1;
  });
}
