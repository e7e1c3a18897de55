import { describe, expect, it } from 'vitest';
import { engines, requestStoreOn } from '../helpers/db.ts';
import { checks, newRequest, testCipher, testSigner } from '../helpers/requests.ts';

/**
 * A request's seal (`Signer.requestSeal`) is made with the number the store gives it and stored
 * with it; an approval of a request that no longer matches its seal claims it at once, so its
 * claimer stops it before any call, whatever count of approvals the row shows.
 */
describe.each(engines())('request seals on %s', (engine) => {
  const fixture = requestStoreOn(engine);

  it('a request is stored sealed over its own number, requester, count of approvals and fingerprint', async () => {
    const created = await fixture.store.create(newRequest({ requiredApprovals: 2 }));
    const stored = await fixture.store.get(created.id);
    expect(stored?.seal).toBe(testSigner.requestSeal(created));
    expect(stored?.seal).toBe(created.seal);
    for (const changed of [
      { id: created.id + 1 },
      { requiredApprovals: 1 },
      { requesterId: 'U0MALLORY' },
      { fingerprint: newRequest().fingerprint },
    ]) {
      expect(testSigner.requestSeal({ ...created, ...changed })).not.toBe(stored?.seal);
    }
  });

  it('a purpose is stored with the request, sealed with it and written in its requested audit row; the body and fingerprint do not carry it', async () => {
    const asked = newRequest({ requiredApprovals: 2, purpose: 'Invoice 2291' });
    const created = await fixture.store.create(asked);
    const stored = await fixture.store.get(created.id);
    expect(stored?.purpose).toBe('Invoice 2291');
    expect(stored?.body).toBe(asked.body);
    expect(stored?.body).not.toContain('Invoice');
    expect(stored?.fingerprint).toBe(testSigner.fingerprint('createPayout', {}, asked.body));
    expect(stored?.seal).toBe(testSigner.requestSeal(created));
    expect(testSigner.requestSeal({ ...created, purpose: 'Invoice 2292' })).not.toBe(stored?.seal);
    expect(testSigner.requestSeal({ ...created, purpose: undefined })).not.toBe(stored?.seal);
    const [requested] = await fixture.store.history(created.id);
    expect(requested?.detail).toEqual({
      operationId: 'createPayout',
      requiredApprovals: 2,
      purpose: 'Invoice 2291',
    });
  });

  it('an approval of a request whose purpose was changed in the database claims it at once, to be stopped', async () => {
    const created = await fixture.store.create(
      newRequest({ requiredApprovals: 2, purpose: 'Invoice 2291' }),
    );
    await fixture.database.db.query('update payment_requests set purpose = $2 where id = $1', [
      created.id,
      'Invoice 9999',
    ]);
    expect((await fixture.store.approve(created.id, 'U0BOB', 'test', checks())).kind).toBe(
      'claimed',
    );
  });

  it('a supporting document is stored with the request, sealed with it, and its hash written in its requested audit row', async () => {
    const document = {
      fileId: 'F0INVOICE1',
      name: 'invoice-2291.pdf',
      size: 2048,
      sha256: 'a'.repeat(64),
      permalink: 'https://acme.slack.com/files/U0ALICE/F0INVOICE1/invoice-2291.pdf',
    };
    const asked = newRequest({ purpose: 'Invoice 2291', document });
    const created = await fixture.store.create(asked);
    const stored = await fixture.store.get(created.id);
    expect(stored?.document).toEqual(document);
    expect(stored?.body).toBe(asked.body);
    expect(stored?.seal).toBe(testSigner.requestSeal(created));
    for (const changed of [
      { document: { ...document, sha256: 'b'.repeat(64) } },
      { document: { ...document, fileId: 'F0INVOICE2' } },
      { document: undefined },
    ]) {
      expect(testSigner.requestSeal({ ...created, ...changed })).not.toBe(stored?.seal);
    }
    const [requested] = await fixture.store.history(created.id);
    expect(requested?.detail).toMatchObject({
      purpose: 'Invoice 2291',
      document: {
        fileId: 'F0INVOICE1',
        name: 'invoice-2291.pdf',
        size: 2048,
        sha256: 'a'.repeat(64),
      },
    });
  });

  it('an approval of a request whose document was changed in the database claims it at once, to be stopped', async () => {
    const document = { fileId: 'F0INVOICE1', name: 'a.pdf', size: 1, sha256: 'a'.repeat(64) };
    const created = await fixture.store.create(newRequest({ requiredApprovals: 2, document }));
    await fixture.database.db.query('update payment_requests set document = $2 where id = $1', [
      created.id,
      JSON.stringify({ ...document, sha256: 'c'.repeat(64) }),
    ]);
    expect((await fixture.store.approve(created.id, 'U0BOB', 'test', checks())).kind).toBe(
      'claimed',
    );
  });

  it('an approval of a request whose seal does not hold claims it at once; of one that holds, it only counts', async () => {
    const intact = await fixture.store.create(newRequest({ requiredApprovals: 2 }));
    expect((await fixture.store.approve(intact.id, 'U0BOB', 'test', checks())).kind).toBe(
      'recorded',
    );

    const changed = await fixture.store.create(newRequest({ requiredApprovals: 2 }));
    const other = newRequest();
    await fixture.database.db.query(
      'update payment_requests set body = $2, fingerprint = $3 where id = $1',
      [changed.id, testCipher.seal(other.body as string), other.fingerprint],
    );
    expect((await fixture.store.approve(changed.id, 'U0BOB', 'test', checks())).kind).toBe(
      'claimed',
    );
  });
});
