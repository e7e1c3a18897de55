/**
 * Who a write pays, as far as its fields say: the destination that identifies them (an account
 * with its routing, a crypto address, a recipient id), and the name it is paid under. A keyed
 * tag of each (`Signer`) lets approvers tell payees apart without seeing their numbers.
 */

/** The fields naming an account, in the order they are looked for. */
const ACCOUNT_FIELDS = ['beneficiary_account', 'account_number', 'iban'];
const ROUTING_FIELDS = ['beneficiary_routing', 'routing_number', 'bic', 'swift'];
const NAME_FIELDS = ['beneficiary_name', 'account_owner_name'];

/** The destination a write pays, or undefined when it pays none. */
export function destinationOf(
  fields: Readonly<Record<string, string>>,
  path: Readonly<Record<string, string>>,
): string | undefined {
  const account = firstOf(fields, ACCOUNT_FIELDS);
  if (account) return `account:${firstOf(fields, ROUTING_FIELDS) ?? ''}/${account}`;
  if (fields.destination_address) return `address:${fields.destination_address}`;
  const recipient = fields.external_account_id ?? path.externalAccountId;
  return recipient ? `recipient:${recipient}` : undefined;
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
}
