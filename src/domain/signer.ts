import { createHmac } from 'node:crypto';
import type { PaymentRequest } from './approval.ts';
import { plainDecimal } from './decimal.ts';
import type { WriteOperationId } from './operations.ts';

/**
 * Every digest payops keeps of a write, keyed with the deployment's signing key
 * (`PAYOPS_SIGNING_KEY`), which is never in the database: someone who can write the database
 * can neither make a changed payload look approved nor learn an account number by hashing
 * guesses. Each purpose has a key of its own, derived from the signing key.
 */
export class Signer {
  readonly #fingerprintKey: Buffer;
  readonly #holdKey: Buffer;
  readonly #approvalKey: Buffer;
  readonly #payeeKey: Buffer;
  /** The audit chain's key (see the audit log's migration). */
  readonly auditKey: Buffer;

  constructor(signingKey: Buffer) {
    const derive = (purpose: string) => createHmac('sha256', signingKey).update(purpose).digest();
    this.#fingerprintKey = derive('payops fingerprint v1');
    this.#holdKey = derive('payops hold v1');
    this.#approvalKey = derive('payops approval v1');
    this.#payeeKey = derive('payops payee v1');
    this.auditKey = derive('payops audit v1');
  }

  /**
   * A short digest of exactly what will be sent. It is shown on the approval message and
   * checked again right before the call, so what is executed is what was approved.
   */
  fingerprint(
    operationId: WriteOperationId,
    path: Readonly<Record<string, string>>,
    body: string | undefined,
  ): string {
    const pathPart = Object.keys(path)
      .sort()
      .map((name) => `${name}=${path[name]}`)
      .join('&');
    return hmacHex(this.#fingerprintKey, `${operationId}\n${pathPart}\n${body ?? ''}`, 16);
  }

  /**
   * What the provider would read a write as, for the hold (`UnsettledTwin`): every string in
   * the path and body NFKC-normalised, trimmed, with runs of spaces as one and upper-cased, and
   * a number written plainly (`5.50`, `05.500` → `5.5`). It over-matches on purpose — a second
   * payment held by mistake waits, one let through may pay twice — and is never sent.
   */
  holdKey(
    operationId: WriteOperationId,
    path: Readonly<Record<string, string>>,
    body: string | undefined,
  ): string {
    const fields = body === undefined ? {} : (JSON.parse(body) as Record<string, unknown>);
    const canonical = (entries: Readonly<Record<string, unknown>>) =>
      Object.keys(entries)
        .sort()
        .map((name) => [name, canonicalValue(entries[name])]);
    return hmacHex(
      this.#holdKey,
      JSON.stringify([operationId, canonical(path), canonical(fields)]),
      32,
    );
  }

  /**
   * What one approver approved: this request, with this fingerprint, asked by this requester,
   * needing this many approvals. Checked for every approval before the call, so a payload, an
   * approval, the requester or the count changed in the database is not sent.
   */
  approvalSeal(
    request: Pick<PaymentRequest, 'id' | 'fingerprint' | 'requesterId' | 'requiredApprovals'>,
    approverId: string,
  ): string {
    const sealed = [
      request.id,
      request.fingerprint,
      request.requesterId,
      request.requiredApprovals,
      approverId,
    ];
    return hmacHex(this.#approvalKey, sealed.join('\n'), 32);
  }

  /**
   * A destination's tag, such as `K7QF-29MX`: the same account always has the same tag, two
   * accounts sharing their last four digits do not, and the account cannot be read back from it.
   */
  payeeTag(destination: string): string {
    return this.#tag(`destination\n${destination}`);
  }

  /** A name's tag: the same for `Jane Roe` and ` jane  roe`, never readable back. */
  nameTag(name: string): string {
    return this.#tag(`name\n${name}`);
  }

  #tag(text: string): string {
    const digest = createHmac('sha256', this.#payeeKey)
      .update(String(canonicalValue(text)).replace(/[\s-]/g, ''))
      .digest();
    let tag = '';
    for (let index = 0; index < 8; index++) {
      tag += TAG_ALPHABET[(digest[index] as number) % TAG_ALPHABET.length];
    }
    return `${tag.slice(0, 4)}-${tag.slice(4)}`;
  }
}

/** Crockford's base 32: no I, L, O or U to misread. */
const TAG_ALPHABET = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';

function hmacHex(key: Buffer, text: string, length: number): string {
  return createHmac('sha256', key).update(text).digest('hex').slice(0, length);
}

function canonicalValue(value: unknown): unknown {
  if (typeof value !== 'string') return value;
  const text = value.normalize('NFKC').trim().replace(/\s+/g, ' ').toUpperCase();
  return plainDecimal(text) ?? text;
}
