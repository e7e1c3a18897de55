import { createHmac } from 'node:crypto';
import { fieldsOf, type PaymentRequest } from './approval.ts';
import { plainDecimal } from './decimal.ts';
import { documentSealFact } from './document.ts';
import type { WriteOperationId } from './operations.ts';
import { BANKING_FIELDS, canonicalBankingId, destinationOf } from './payee.ts';
import { moneyOf } from './policy.ts';
import { canonicalJson } from './policy-version.ts';

/** What a write is held and counted by (see `Signer.keysOf`). */
export interface WriteKeys {
  holdKey: string;
  /** Undefined for a write that pays no destination. */
  payeeTag: string | undefined;
  /** Undefined for a write that pays no destination an amount. */
  paymentKey: string | undefined;
}

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
  readonly #requestKey: Buffer;
  readonly #payeeKey: Buffer;
  /** The audit chain's key (see the audit log's migration). */
  readonly auditKey: Buffer;

  constructor(signingKey: Buffer) {
    const derive = (purpose: string) => createHmac('sha256', signingKey).update(purpose).digest();
    this.#fingerprintKey = derive('payops fingerprint v1');
    this.#holdKey = derive('payops hold v1');
    this.#approvalKey = derive('payops approval v1');
    this.#requestKey = derive('payops request v1');
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
   * the path and body NFKC-normalised, trimmed, with runs of spaces as one and upper-cased, a
   * number written plainly (`5.50`, `05.500` → `5.5`) and a banking identifier as
   * `canonicalBankingId` writes it. It over-matches on purpose — a second payment held by
   * mistake waits, one let through may pay twice — and is never sent.
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
        .map((name) => {
          const value = entries[name];
          return [
            name,
            BANKING_FIELDS.has(name) && typeof value === 'string'
              ? canonicalBankingId(value)
              : canonicalValue(value),
          ];
        });
    return hmacHex(
      this.#holdKey,
      JSON.stringify([operationId, canonical(path), canonical(fields)]),
      32,
    );
  }

  /**
   * The payment a write makes, however it is spelt or sent (a payout, a transfer): its payee's
   * tag, wallet, amount and currency. The hold compares it besides `holdKey`, so the same
   * payment with another memo, or to a recipient whose account is the one paid, waits too.
   */
  paymentKey(payeeTag: string, fields: Readonly<Record<string, string>>): string | undefined {
    const { currency, amount } = moneyOf(fields);
    if (amount === undefined) return undefined;
    const payment = [payeeTag, fields.wallet_id ?? '', amount, currency ?? ''].map(canonicalValue);
    return hmacHex(this.#holdKey, JSON.stringify(['payment', ...payment]), 32);
  }

  /**
   * What a write is held and counted by. `destination` is its payee as the provider showed it
   * (a recipient's account), else the one its fields name (`destinationOf`).
   */
  keysOf(
    write: Pick<PaymentRequest, 'operationId' | 'path' | 'body'>,
    destination = destinationOf(fieldsOf(write), write.path),
  ): WriteKeys {
    const payeeTag = destination === undefined ? undefined : this.payeeTag(destination);
    return {
      holdKey: this.holdKey(write.operationId, write.path, write.body),
      payeeTag,
      paymentKey: payeeTag === undefined ? undefined : this.paymentKey(payeeTag, fieldsOf(write)),
    };
  }

  /**
   * What one approver approved: this request, with this fingerprint, asked by this requester,
   * needing this many approvals, for this purpose. Checked for every approval before the call, so
   * a payload, an approval, the requester, the count or the purpose changed in the database is
   * not sent.
   */
  approvalSeal(request: SealedFacts & Chained, approverId: string, step?: number): string {
    // A chain's approval seals the rule, the policy version and the step it filled as well.
    const filled =
      request.chain === undefined
        ? []
        : [request.chain.rule, request.chain.policyVersion, step ?? 'no step'];
    return hmacHex(
      this.#approvalKey,
      [...sealedFacts(request), ...chainFact(request), approverId, ...filled].join('\n'),
      32,
    );
  }

  /**
   * What a request was made as, sealed when it is stored: this number, asked by this requester,
   * needing this many approvals, for this fingerprint and this purpose. Checked when an approval
   * is counted and right before the call, so another request's payload copied into it, a lowered
   * count of approvals or another purpose, written in the database, is stopped, never sent.
   */
  requestSeal(request: SealedFacts & Chained): string {
    return hmacHex(
      this.#requestKey,
      [...sealedFacts(request), ...chainFact(request)].join('\n'),
      32,
    );
  }

  /**
   * A destination's tag (`destinationOf`), such as `K7QF-29MX`: the same account always has the
   * same tag, two accounts sharing their last four digits do not, and the account cannot be read
   * back from it.
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

/**
 * What a request's seal and each approval's seal are over. The purpose is sealed, not
 * fingerprinted: the card shows it, so an approval is of it too, while the fingerprint (and the
 * hold) stay digests of what the provider is sent, which the purpose never is.
 */
type SealedFacts = Pick<
  PaymentRequest,
  'id' | 'fingerprint' | 'requesterId' | 'requiredApprovals' | 'purpose'
> &
  /** Its supporting document's id and hash: what approvers were shown of it, sealed the same way. */
  Pick<PaymentRequest, 'document'>;

function sealedFacts(request: SealedFacts): Array<string | number> {
  const facts = [request.id, request.fingerprint, request.requesterId, request.requiredApprovals];
  // Last and JSON-quoted, so no purpose reads as another; a request without one seals four facts.
  const stated =
    request.purpose === undefined ? facts : [...facts, JSON.stringify(request.purpose)];
  return request.document === undefined ? stated : [...stated, documentSealFact(request.document)];
}

/** A request's approval chain, sealed with it when it has one. */
type Chained = Pick<PaymentRequest, 'chain'>;

/** The chain as canonical JSON, labelled so that no other fact reads as it; none without one. */
function chainFact(request: Chained): string[] {
  return request.chain === undefined ? [] : [`chain ${canonicalJson(request.chain)}`];
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
