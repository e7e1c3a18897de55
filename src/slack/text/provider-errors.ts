import type {
  PaymentsErrorCode,
  ProviderErrorFacts,
  UnknownOutcomeReason,
} from '../../payments/errors.ts';

/**
 * A failed call to the Payments API in a person's words: what happened and what to do, then
 * what the provider said of it. The same words in a reply, on a card and in a finding.
 */
export function providerErrorText(facts: ProviderErrorFacts): string {
  return WORDS[facts.code](facts, providerSaid(facts));
}

const WORDS: Record<PaymentsErrorCode, (facts: ProviderErrorFacts, said: string) => string> = {
  'payments.missing_api_key': () =>
    'The Payments API says no API key reached it. Check that PAYMENTS_API_KEY is set and that no proxy strips the X-Api-Key header.',
  'payments.invalid_api_key': () =>
    'The Payments API rejected the API key as invalid or revoked, or the business is not eligible. Stop and ask an administrator to check the key and the business verification; do not try another business.',
  'payments.insufficient_scope': () =>
    'The API key does not have the permission this operation needs. An administrator must grant the missing scope to the key.',
  'payments.scope_review_required': () =>
    "The API key is a legacy key under scope review. An administrator must finish the key's review with the provider before payops can use it.",
  'payments.rejected': ({ status }, said) =>
    `The Payments API refused the request (${status})${said}. Nothing was executed; correct the request and try again.`,
  'payments.server_error': ({ status }, said) =>
    `The Payments API failed with an internal error (${status})${said}. Try again in a moment.`,
  'payments.timeout': () => 'The Payments API did not answer in time. Try again in a moment.',
  'payments.network': () =>
    'payops could not reach the Payments API. Try again in a moment; if it persists, check the network and PAYMENTS_BASE_URL.',
  'payments.malformed_response': (_, said) =>
    `The Payments API answered with something payops cannot read${said}. Try again; if it persists, tell the provider.`,
  'payments.reply_too_large': ({ limitBytes = 0 }, said) =>
    `The Payments API answered with more than payops reads of one reply (${limitBytes / (1024 * 1024)} MiB), so it was not read${said}. If a list is this large, ask the provider for smaller pages.`,
  'payments.outcome_unknown': ({ reason }, said) =>
    `The outcome of this write is unknown (${reason ? REASON_WORDS[reason] : 'no reason recorded'})${said}. Do not resubmit: it may have been executed. Check the matching list first.`,
};

const REASON_WORDS: Record<UnknownOutcomeReason, string> = {
  timeout: 'no answer in time',
  connection_lost: 'the connection dropped after the request was sent',
  server_error: 'the provider failed while handling it',
  unreadable_success_reply: 'the provider accepted it but its reply could not be read',
  unexpected_reply: 'the provider answered with a redirect, which payops does not follow',
  unclear_refusal: 'the provider answered with a 4xx status that does not say it was not executed',
};

/** The provider's own words (already scrubbed in the facts) and its request id. */
function providerSaid({ providerCode, providerMessage, requestId }: ProviderErrorFacts): string {
  const parts = [providerCode, providerMessage, requestId && `request id ${requestId}`].filter(
    Boolean,
  );
  return parts.length > 0 ? `: ${parts.join(' — ')}` : '';
}
