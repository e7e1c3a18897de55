/**
 * Who a write pays, as far as its fields say: the destination that identifies them (an account
 * with its routing, a crypto address, a recipient id), and the name it is paid under. A keyed
 * tag of each (`Signer`) lets approvers tell payees apart without seeing their numbers.
 */

/** The fields naming an account, in the order they are looked for. */
const ACCOUNT_FIELDS = ['beneficiary_account', 'account_number', 'iban'];
const ROUTING_FIELDS = ['beneficiary_routing', 'routing_number', 'bic', 'swift'];
const NAME_FIELDS = ['beneficiary_name', 'account_owner_name'];

/** The fields holding banking identifiers: compared only in their `canonicalBankingId` form. */
export const BANKING_FIELDS: ReadonlySet<string> = new Set([...ACCOUNT_FIELDS, ...ROUTING_FIELDS]);

/**
 * A banking identifier (account or routing number, IBAN, BIC) as payops compares it — in the
 * hold, the payee's tag and the policy window: upper-case, without spaces, dashes or dots, and
 * without leading zeros, so `0001 2345 6789`, `000-123-456-789` and `123456789` are one account
 * and `021000021` and `21000021` one routing number. Two real accounts differing only there
 * would be taken for one: a payment held or counted more, never one let through.
 */
export function canonicalBankingId(value: string): string {
  return value
    .normalize('NFKC')
    .toUpperCase()
    .replace(/[\s\p{Pd}.]/gu, '')
    .replace(/^0+(?=.)/, '');
}

const RECIPIENT = 'recipient:';

/** The destination a write pays, or undefined when it pays none. */
export function destinationOf(
  fields: Readonly<Record<string, string>>,
  path: Readonly<Record<string, string>>,
): string | undefined {
  const account = firstOf(fields, ACCOUNT_FIELDS);
  if (account) {
    const routing = canonicalBankingId(firstOf(fields, ROUTING_FIELDS) ?? '');
    return `account:${routing}/${canonicalBankingId(account)}`;
  }
  if (fields.destination_address) return `address:${fields.destination_address}`;
  const recipient = fields.external_account_id ?? path.externalAccountId;
  return recipient ? `${RECIPIENT}${recipient}` : undefined;
}

/**
 * Who a write pays, a recipient it names taken as the account the provider shows for it
 * (`recipientAccount`, from `recipientAccountOf`), so that paying the account and paying its
 * recipient are one payee. Without that account the recipient id stands (`recipientUnread`).
 */
export function payeeDestinationOf(
  fields: Readonly<Record<string, string>>,
  path: Readonly<Record<string, string>>,
  recipientAccount: string | undefined,
): { destination: string; recipientUnread: boolean } | undefined {
  const named = destinationOf(fields, path);
  if (named === undefined) return undefined;
  if (!named.startsWith(RECIPIENT)) return { destination: named, recipientUnread: false };
  return recipientAccount
    ? { destination: recipientAccount, recipientUnread: false }
    : { destination: named, recipientUnread: true };
}

/**
 * The account a recipient's record (`GET /external-accounts/{id}`) shows, as `destinationOf`
 * names it; undefined when it shows none in full (absent, or masked like `••••6789`).
 */
export function recipientAccountOf(record: Readonly<Record<string, unknown>>): string | undefined {
  const fields = Object.fromEntries(
    Object.entries(record).filter(
      (entry): entry is [string, string] => typeof entry[1] === 'string',
    ),
  );
  const shown = [...BANKING_FIELDS].map((name) => fields[name]?.trim());
  if (!firstOf(fields, ACCOUNT_FIELDS) || shown.some((value) => value && !isWhole(value))) {
    return undefined;
  }
  return destinationOf(fields, {});
}

/**
 * Not masked: letters and digits with separators only (no `•`, `*` or `…`), and no `XXXX`
 * standing for digits.
 */
function isWhole(identifier: string): boolean {
  const canonical = canonicalBankingId(identifier);
  return (
    /^[\p{L}\p{N}\s\p{Pd}.]+$/u.test(identifier) &&
    /^[0-9A-Z]+$/.test(canonical) &&
    !/^X{2,}/.test(canonical)
  );
}

/** The name a write pays under: the body's, or the provider's name of its recipient. */
export function payeeNameOf(
  fields: Readonly<Record<string, string>>,
  recipientName: string | undefined,
): string | undefined {
  return firstOf(fields, NAME_FIELDS) ?? recipientName;
}

function firstOf(fields: Readonly<Record<string, string>>, names: readonly string[]) {
  return names.map((name) => fields[name]?.trim()).find(Boolean);
}

/** What the approval card says about the payee. */
export interface PayeeCheck {
  /** The destination's tag, e.g. `K7QF-29MX`. */
  tag: string;
  /** This deployment has never paid this destination. */
  newPayee: boolean;
  /** The same name was paid before at another destination (its tags). */
  changedFrom: string[];
  /**
   * The write names a recipient whose account could not be read (the read failed, or the
   * record shows none in full): the tag is the recipient id's, so the same account paid under
   * another spelling is told apart.
   */
  recipientUnread?: true;
}
