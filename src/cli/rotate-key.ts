import { PayloadCipher } from '../store/payload-cipher.ts';
import { RequestStore } from '../store/request-store.ts';
import { withStore } from './store-tool.ts';

export const usage = `Usage: payops rotate-key

Re-encrypts every stored payload with PAYOPS_ENCRYPTION_KEY, the current key: those stored with a
key now in PAYOPS_ENCRYPTION_OLD_KEYS, and any stored before encryption. Safe while payops runs on
PostgreSQL; stop payops first on an embedded store. Once it is done, the old keys may be removed.
Exit codes: 0 done, 2 the configuration is invalid, 3 it could not finish (a payload may still
be on an old key: keep the old keys and run it again).`;

export const flags: readonly string[] = [];

export async function run(): Promise<number> {
  return withStore('rotate-key', async (db, config) => {
    const cipher = new PayloadCipher(config.encryption);
    const count = await new RequestStore(db, cipher).reencryptPayloads();
    console.log(`re-encrypted ${count} stored payload(s) with key ${cipher.currentKeyId}`);
    return 0;
  });
}
