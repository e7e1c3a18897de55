import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseJsonPreservingDecimals } from '../../src/payments/lossless-json.ts';
import { readProblem } from '../../src/payments/problem.ts';
import { findList, recordIdentity } from '../../src/payments/response-shape.ts';

describe('lossless JSON', () => {
  it('keeps every digit of decimal numbers as the provider wrote them', () => {
    expect(
      parseJsonPreservingDecimals(
        '{"amount":1250.50,"rate":0.91843700,"n":3,"big":90071992547409930}',
      ),
    ).toEqual({ amount: '1250.50', rate: '0.91843700', n: 3, big: '90071992547409930' });
  });

  it('leaves numbers inside strings, escapes included, untouched', () => {
    expect(parseJsonPreservingDecimals('{"note":"paid 1.50 \\"2.0\\"","x":[-0.5e2]}')).toEqual({
      note: 'paid 1.50 "2.0"',
      x: ['-0.5e2'],
    });
  });

  it('parses any JSON text to the value JSON.parse gives, numbers compared by value', () => {
    const sameValue = (lossless: unknown, plain: unknown): boolean => {
      if (typeof plain === 'number' && typeof lossless === 'string') {
        return Number(lossless) === plain;
      }
      if (Array.isArray(plain)) {
        return (
          Array.isArray(lossless) &&
          lossless.length === plain.length &&
          plain.every((item, index) => sameValue(lossless[index], item))
        );
      }
      if (plain !== null && typeof plain === 'object') {
        const record = lossless as Record<string, unknown>;
        const keys = Object.keys(plain);
        return (
          keys.length === Object.keys(record).length &&
          keys.every((key) => sameValue(record[key], (plain as Record<string, unknown>)[key]))
        );
      }
      return Object.is(lossless, plain);
    };
    fc.assert(
      fc.property(fc.json(), (text) => {
        expect(sameValue(parseJsonPreservingDecimals(text), JSON.parse(text))).toBe(true);
      }),
      { numRuns: 500 },
    );
  });

  it('rejects malformed JSON like JSON.parse does', () => {
    expect(() => parseJsonPreservingDecimals('{"data": [')).toThrow(SyntaxError);
  });
});

describe('error bodies of unknown shape', () => {
  it.each([
    [
      '{"error":{"code":"INSUFFICIENT_API_KEY_SCOPE","message":"nope","request_id":"r1"}}',
      'INSUFFICIENT_API_KEY_SCOPE',
      'nope',
      'r1',
    ],
    ['{"code":"X_Y","message":"m","requestId":"r2"}', 'X_Y', 'm', 'r2'],
    ['{"errors":[{"code":"E1","detail":"d"}],"meta":{"request_id":"r3"}}', 'E1', 'd', 'r3'],
    [
      '{"error":"API_KEY_SCOPE_REVIEW_REQUIRED"}',
      'API_KEY_SCOPE_REVIEW_REQUIRED',
      'API_KEY_SCOPE_REVIEW_REQUIRED',
      undefined,
    ],
    ['{"error":"An API key is required"}', undefined, 'An API key is required', undefined],
    ['<html>Bad gateway</html>\nmore', undefined, '<html>Bad gateway</html>', undefined],
    ['', undefined, undefined, undefined],
    ['null', undefined, undefined, undefined],
    ['[1,2]', undefined, undefined, undefined],
  ])('reads %s', (text, code, message, requestId) => {
    expect(readProblem(text)).toEqual({ code, message, requestId });
  });

  it('never throws, whatever the body', () => {
    fc.assert(
      fc.property(fc.oneof(fc.string(), fc.json()), (text) => {
        expect(() => readProblem(text)).not.toThrow();
      }),
    );
  });
});

describe('lists and records of unknown shape', () => {
  it('finds a list wherever it reasonably is', () => {
    expect(findList([1, 2])).toEqual({ items: [1, 2], at: '', total: undefined });
    expect(findList({ data: [1], total: 7 })).toEqual({ items: [1], at: 'data', total: 7 });
    expect(findList({ wallets: [1] })?.at).toBe('wallets');
    expect(findList({ data: { items: [3] } })).toEqual({
      items: [3],
      at: 'data.items',
      total: undefined,
    });
    expect(findList({ status: 'ok' })).toBeUndefined();
    expect(findList('text')).toBeUndefined();
  });

  it("finds a record's identifying fields under common names", () => {
    expect(recordIdentity({ id: 'po_1', status: 'pending', created_at: '2026-01-01' })).toEqual({
      id: 'po_1',
      name: undefined,
      status: 'pending',
      createdAt: '2026-01-01',
    });
    expect(recordIdentity({ payout_id: 'po_2', state: 'done', label: 'x' })).toMatchObject({
      id: 'po_2',
      name: 'x',
      status: 'done',
    });
    expect(recordIdentity(null).id).toBeUndefined();
  });

  it("never takes another record's id for a record's own: wallet_id beside transfer_id is its wallet", () => {
    const transfer = { wallet_id: 'wal_1', external_account_id: 'ea_1', transfer_id: 'tr_9' };
    expect(recordIdentity(transfer).id).toBe('tr_9');
    expect(recordIdentity({ walletId: 'wal_1', transferId: 'tr_9' }).id).toBe('tr_9');
    // A wallet listed under its own wallet_id, alone.
    expect(recordIdentity({ wallet_id: 'wal_1', chain: 'ethereum' }).id).toBe('wal_1');
    // Only references, or two ids of its own: no id rather than a guess.
    expect(recordIdentity({ wallet_id: 'wal_1', external_account_id: 'ea_1' }).id).toBeUndefined();
    expect(recordIdentity({ payout_id: 'po_1', batch_id: 'b_1' }).id).toBeUndefined();
  });
});
