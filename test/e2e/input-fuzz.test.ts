import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { READ_COMMAND_WORDS } from '../../src/domain/commands.ts';
import {
  isWrite,
  OPERATION_IDS,
  OPERATIONS,
  type WriteOperationId,
} from '../../src/domain/operations.ts';
import { WRITE_COMMAND_WORDS } from '../../src/domain/write-commands.ts';
import { type Rehearsal, startRehearsal } from '../../src/rehearsal/rehearsal.ts';
import { SANDBOX_IDS } from '../../src/rehearsal/sandbox/payments-data.ts';
import type {
  JsonObject,
  SignedResponse,
  SlackContentType,
} from '../../src/rehearsal/sandbox/slack.ts';
import { ACTION, VIEW } from '../../src/slack/interaction-ids.ts';
import { ask } from '../helpers/slack.ts';

/**
 * Whatever arrives signed at payops's HTTP endpoint — slash-command text, the request and
 * reject-reason forms, button clicks, and bodies no Slack would send — is answered, and payops
 * stays up with nothing thrown past it. The inputs come from a seeded generator; a failure
 * names its seed (PAYOPS_FUZZ_SEED replays it) and the inputs that failed.
 */

const RUNS = { command: 5_000, requestForm: 2_000, rejectForm: 1_000, click: 1_500, odd: 500 };
/** Requests in flight at once: enough to keep both cores busy, not so many that acks queue. */
const CONCURRENCY = 8;
/** Requests Bolt answers only after its acknowledgement wait: many wait at once, doing nothing. */
const WAITING_CONCURRENCY = 100;
const SEED = Number(process.env.PAYOPS_FUZZ_SEED ?? Date.now() % 2 ** 31);

// ——— what a person could type or paste ———

const WRITE_OPERATIONS = OPERATION_IDS.filter(isWrite) as WriteOperationId[];
const FIELD_NAMES = [
  ...new Set(
    WRITE_OPERATIONS.flatMap((id) => [...OPERATIONS[id].bodyFields, ...OPERATIONS[id].pathParams]),
  ),
];

/** Text Slack lets through, and what it would not: controls (NUL too), lone surrogates, entities. */
const oddText = fc.oneof(
  fc.string({ maxLength: 12 }),
  fc.string({ unit: 'grapheme', maxLength: 8 }),
  fc.string({ unit: 'binary', maxLength: 8 }),
  fc.constantFrom(
    '\u0000',
    'a\u0000b',
    '\u0007\u001b[31m',
    '\u202eevil',
    '\u200b',
    '\ud800',
    '&amp;',
    '&lt;script&gt;',
    '&amp;amp;',
    '<!channel>',
    '<@U0BOB>',
    '<#C0APPROVALS|approvals>',
    '<https://example.com|click>',
    '*bold* _it_ ~s~ `c`',
    ':x:',
    '__proto__',
    'constructor',
    'null',
    'NaN',
    'Infinity',
    '1e309',
    '-0',
    '0x10',
    '١٢٣',
    'Ｊａｎｅ',
  ),
);

const amount = fc.oneof(
  fc.constantFrom(
    '1',
    '0',
    '-1',
    '1.5',
    '0.000',
    '12.5.0',
    '1e9',
    '1,000.00',
    '  2 ',
    '9'.repeat(40),
  ),
  fc.integer({ min: 0, max: 10 ** 9 }).map(String),
  fc.tuple(fc.nat(99_999), fc.nat(999_999)).map(([whole, cents]) => `${whole}.${cents}`),
);

/** Field values: the seeded ids and account numbers (which must never be echoed in full), and noise. */
const fieldValue = fc.oneof(
  amount,
  oddText,
  fc.constantFrom(
    SANDBOX_IDS.wallet.ethereumOps,
    SANDBOX_IDS.recipient.usSupplier,
    'USDC',
    'USD',
    'ach',
    'Jane Roe',
    '000123456789',
    '021000021',
    'DE89370400440532013000',
  ),
  fc.string({ minLength: 400, maxLength: 2_000 }),
);

const quoted = (value: string) => (/[\s"]/.test(value) ? `"${value.replace(/"/g, '')}"` : value);
const fieldPair = fc
  .tuple(fc.oneof(fc.constantFrom(...FIELD_NAMES), oddText), fieldValue)
  .map(([name, value]) => `${name}=${quoted(value)}`);

const word = fc.constantFrom(
  ...READ_COMMAND_WORDS,
  ...WRITE_COMMAND_WORDS,
  'balance',
  'fx',
  '--sync',
  '--limit',
  'request',
  'requests',
  'audit',
);
const quote = fc.constantFrom('"', "'", '“', '”', '‘', '’', '„', '`');
const piece = fc.oneof(word, quote, oddText, fieldPair);

const commandText = fc.oneof(
  { weight: 10, arbitrary: fc.array(piece, { maxLength: 8 }).map((parts) => parts.join(' ')) },
  {
    weight: 6,
    arbitrary: fc
      .tuple(fc.constantFrom(...WRITE_COMMAND_WORDS), fc.array(fieldPair, { maxLength: 10 }))
      .map(([command, pairs]) => [command, ...pairs].join(' ')),
  },
  { weight: 1, arbitrary: fc.constant('') },
  { weight: 1, arbitrary: fc.string({ minLength: 3_000, maxLength: 12_000 }) },
);

// ——— who sends it ———

/** Readers, requesters, approvers and strangers, in and out of the channels payops serves. */
const anyone = fc.constantFrom('U0ALICE', 'U0BOB', 'U0CAROL', 'U0DAVE', 'U0NOBODY', 'W0GUEST', '');
const channel = fc.constantFrom('C0PAYOPS', 'C0APPROVALS', 'D0ALICE', 'C0UNKNOWN', '');
/**
 * Clicks come from people who may not approve: an approver's click on a request the fuzz
 * created would execute it, which is the workflow working, not an input handled.
 */
const nonApprover = fc.constantFrom('U0DAVE', 'U0NOBODY', 'W0GUEST', '');

// ——— forms and clicks ———

const inputValue = fc.oneof(
  { weight: 6, arbitrary: fieldValue.map((value) => ({ type: 'plain_text_input', value })) },
  {
    weight: 2,
    arbitrary: fieldValue.map((value) => ({ type: 'static_select', selected_option: { value } })),
  },
  {
    weight: 1,
    arbitrary: fc.constantFrom<unknown>(
      null,
      {},
      { type: 'plain_text_input', value: null },
      { type: 'plain_text_input', value: 7 },
      { type: 'static_select', selected_option: null },
      [],
      'text',
    ),
  },
);

const requestMetadata = fc.oneof(
  fc
    .tuple(
      fc.constantFrom<string>(...WRITE_OPERATIONS, 'getBalance', '__proto__', ''),
      fc.dictionary(oddText, oddText, { maxKeys: 2 }),
    )
    .map(([operationId, path]) => JSON.stringify({ operationId, path })),
  oddText,
  fc.constantFrom('', '{}', 'null', '[]', '{"operationId":"createPayout"}'),
);

const requestForm = fc.record({
  userId: anyone,
  metadata: requestMetadata,
  values: fc.dictionary(
    fc.oneof(fc.constantFrom(...FIELD_NAMES), oddText),
    fc.oneof(
      inputValue.map((input) => ({ field: input })),
      fc.dictionary(oddText, inputValue, { maxKeys: 2 }),
    ),
    { maxKeys: 12 },
  ),
});

const rejectForm = fc.record({
  userId: anyone,
  metadata: fc.oneof(
    fc.nat(50).map(String),
    oddText,
    fc.constantFrom('-1', '1e3', '99999999999999999999'),
  ),
  reason: fc.oneof(fieldValue, fc.string({ minLength: 490, maxLength: 5_000 }), fc.constant(null)),
});

const click = fc.record({
  userId: nonApprover,
  // Mostly payops's own buttons; Bolt answers any other only after its acknowledgement wait.
  actionId: fc.oneof(
    { weight: 9, arbitrary: fc.constantFrom(...Object.values(ACTION)) },
    { weight: 1, arbitrary: oddText },
  ),
  value: fc.oneof(fc.nat(50).map(String), oddText, fc.constant(undefined)),
  channel,
  ts: fc.oneof(fc.constant('1700000000.000100'), oddText),
});

/** A JSON object, never `null`, an array or a scalar. */
const jsonObject = fc.dictionary(fc.string({ maxLength: 8 }), fc.jsonValue(), { maxKeys: 4 });

/**
 * Signed bodies no Slack would send: no payload, a payload that is not JSON, JSON objects of
 * no known shape. (A top-level `null`, array or scalar, and `view: null` or `actions: [null]`,
 * are the edge's to refuse before Bolt reads them: see docs/threat-model.md.)
 */
const oddBody = fc.oneof(
  fc.record({ type: fc.constant('form' as const), body: fc.oneof(oddText, fieldValue) }),
  fc.record({
    type: fc.constant('form' as const),
    body: fc
      .oneof(
        fc.constantFrom('{', '{"type":', '{}', '{"type":"block_actions"}', '{"type":"shortcut"}'),
        jsonObject.map((payload) => JSON.stringify(payload)),
      )
      .map((payload) => new URLSearchParams({ payload }).toString()),
  }),
  fc.record({
    type: fc.constant('form' as const),
    body: fc
      .dictionary(
        fc.constantFrom(
          'command',
          'text',
          'user_id',
          'channel_id',
          'response_url',
          'trigger_id',
          'team_id',
        ),
        oddText,
      )
      .map((fields) => new URLSearchParams(fields).toString()),
  }),
  fc.record({
    type: fc.constant('json' as const),
    body: fc.oneof(
      jsonObject.map((body) => JSON.stringify(body)),
      fc.constantFrom(
        '{"type":"event_callback"}',
        '{"type":"url_verification","challenge":7}',
        '{"type":"event_callback","event":{"type":"app_home_opened"}}',
      ),
    ),
  }),
);

const commandCase = fc
  .record({ text: commandText, userId: anyone, channelId: channel })
  .map((input) => ({ kind: 'command' as const, ...input }));
const requestFormCase = requestForm.map((input) => ({ kind: 'requestForm' as const, ...input }));
const rejectFormCase = rejectForm.map((input) => ({ kind: 'rejectForm' as const, ...input }));
const clickCase = click.map((input) => ({ kind: 'click' as const, ...input }));
const oddCase = oddBody.map((input) => ({ kind: 'odd' as const, ...input }));

type Of<A> = A extends fc.Arbitrary<infer T> ? T : never;
type FuzzCase =
  | Of<typeof commandCase>
  | Of<typeof requestFormCase>
  | Of<typeof rejectFormCase>
  | Of<typeof clickCase>
  | Of<typeof oddCase>;

/** RUNS of each kind, interleaved so that every kind meets whatever state the others left. */
function fuzzCases(): FuzzCase[] {
  const kinds: [fc.Arbitrary<FuzzCase>, number][] = [
    [commandCase, RUNS.command],
    [requestFormCase, RUNS.requestForm],
    [rejectFormCase, RUNS.rejectForm],
    [clickCase, RUNS.click],
    [oddCase, RUNS.odd],
  ];
  const all = kinds.flatMap(([arbitrary, numRuns], index) =>
    fc.sample(arbitrary, { numRuns, seed: SEED + index }),
  );
  const [order] = fc.sample(fc.shuffledSubarray([...all.keys()], { minLength: all.length }), {
    numRuns: 1,
    seed: SEED,
  });
  return (order ?? []).map((index) => all[index] as FuzzCase);
}

// ——— sending ———

interface Sent {
  readonly input: FuzzCase;
  readonly status: number;
  readonly body: string;
  /** Where a command's answer goes: its response_url, or a form opened with its trigger. */
  readonly responseUrlId?: string;
  readonly triggerId?: string;
}

function send(r: Rehearsal, input: FuzzCase, index: number): Promise<Sent> {
  const answered = (response: SignedResponse & { responseUrlId?: string; triggerId?: string }) => ({
    input,
    status: response.status,
    body: response.body,
    ...(response.responseUrlId === undefined ? {} : { responseUrlId: response.responseUrlId }),
    ...(response.triggerId === undefined ? {} : { triggerId: response.triggerId }),
  });
  switch (input.kind) {
    case 'command':
      return r.driver.slashCommand(input).then(answered);
    case 'requestForm':
    case 'rejectForm': {
      const view = {
        id: `VFUZZ${index}`,
        type: 'modal',
        callback_id: input.kind === 'requestForm' ? VIEW.request : VIEW.rejectReason,
        private_metadata: input.metadata,
        state: {
          values: (input.kind === 'requestForm'
            ? input.values
            : {
                reason: { reason: { type: 'plain_text_input', value: input.reason } },
              }) as JsonObject,
        },
      };
      return r.driver.viewSubmission({ userId: input.userId, view }).then(answered);
    }
    case 'click':
      return r.driver
        .blockAction({
          userId: input.userId,
          actionId: input.actionId,
          ...(input.value === undefined ? {} : { value: input.value }),
          message: { channel: input.channel, ts: input.ts },
        })
        .then(answered);
    case 'odd': {
      const type: SlackContentType =
        input.type === 'json' ? 'application/json' : 'application/x-www-form-urlencoded';
      return r.driver.send(input.body, type).then(answered);
    }
  }
}

/** Longer than Bolt's wait for an acknowledgement (about 3 s), however busy payops is. */
const ANSWER_TIMEOUT_MS = 15_000;

/**
 * Whether Bolt has no listener for it: such a request is answered 404, but only once Bolt's
 * wait for an acknowledgement is over, so these are sent in a lane of their own.
 */
const KNOWN_ACTIONS: readonly string[] = Object.values(ACTION);
const unlistened = (input: FuzzCase) =>
  input.kind === 'odd' || (input.kind === 'click' && !KNOWN_ACTIONS.includes(input.actionId));

/** Sends every case, `concurrency` at a time; one not answered in time is kept with its error. */
async function sendAll(r: Rehearsal, inputs: FuzzCase[], concurrency: number) {
  const sent: Sent[] = [];
  const unanswered: { input: FuzzCase; error: string }[] = [];
  let next = 0;
  const worker = async () => {
    while (next < inputs.length) {
      const index = next++;
      const input = inputs[index] as FuzzCase;
      let timer: NodeJS.Timeout | undefined;
      const timeout = new Promise<never>((_, reject) => {
        timer = setTimeout(
          () => reject(new Error(`no answer within ${ANSWER_TIMEOUT_MS} ms`)),
          ANSWER_TIMEOUT_MS,
        );
      });
      await Promise.race([send(r, input, index), timeout]).then(
        (result) => sent.push(result),
        (error: unknown) => unanswered.push({ input, error: String(error) }),
      );
      clearTimeout(timer);
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  return { sent, unanswered };
}

// ——— the run ———

const thrown: unknown[] = [];
const onThrown = (error: unknown) => thrown.push(error);
const errorLines: string[] = [];
let r: Rehearsal;

beforeAll(async () => {
  process.on('unhandledRejection', onThrown);
  process.on('uncaughtException', onThrown);
  r = await startRehearsal({
    // Inputs, not Slack's pace: the emulation's rate limits would only slow the run.
    slack: { rateLimits: 'off' },
    logDestination: {
      write(line: string) {
        // pino's levels: 50 error, 60 fatal.
        if (/"level":(5|6)0/.test(line)) errorLines.push(line);
      },
    },
  });
});

afterAll(async () => {
  await r?.close();
  process.off('unhandledRejection', onThrown);
  process.off('uncaughtException', onThrown);
});

describe(`${Object.values(RUNS).reduce((a, b) => a + b)} generated inputs through the signed HTTP endpoint (seed ${SEED})`, () => {
  it('are each answered, each command exactly once, and payops stays up with nothing thrown and nothing executed', async () => {
    const inputs = fuzzCases();
    const started = performance.now();
    const lanes = await Promise.all([
      sendAll(
        r,
        inputs.filter((input) => !unlistened(input)),
        CONCURRENCY,
      ),
      sendAll(r, inputs.filter(unlistened), WAITING_CONCURRENCY),
    ]);
    const sent = lanes.flatMap((lane) => lane.sent);
    const unanswered = lanes.flatMap((lane) => lane.unanswered);
    const sentMs = performance.now() - started;

    expect(unanswered).toEqual([]);
    // What payops listens for is answered 200 however odd its content; other Slack requests 404.
    expect(sent.filter((one) => !unlistened(one.input) && one.status !== 200)).toEqual([]);
    expect(
      sent.filter((one) => one.input.kind !== 'odd' && ![200, 404].includes(one.status)),
    ).toEqual([]);
    // Bodies no Slack would send are refused (400) or left unheard (404): none fails inside.
    const boltFailures = sent.filter((one) => one.status === 500);
    expect(boltFailures.map((one) => one.input)).toEqual([]);

    // Every command is answered once: on its response_url, or by a form opened with its trigger.
    const commands = sent.filter((one) => one.input.kind === 'command');
    // Counted once per look: the records hold thousands of answers.
    let answersBy = new Map<string, number>();
    const countAnswers = () => {
      answersBy = new Map();
      const count = (key: string) => answersBy.set(key, (answersBy.get(key) ?? 0) + 1);
      for (const post of r.slack.responses) count(`url ${post.id}`);
      for (const call of r.slack.callsTo('views.open'))
        count(`trigger ${String(call.args.trigger_id)}`);
    };
    const answersTo = (one: Sent) =>
      (answersBy.get(`url ${one.responseUrlId}`) ?? 0) +
      (answersBy.get(`trigger ${one.triggerId}`) ?? 0);
    const deadline = Date.now() + 30_000;
    let unansweredCommands = commands;
    while (Date.now() < deadline) {
      countAnswers();
      unansweredCommands = commands.filter((one) => answersTo(one) === 0);
      if (unansweredCommands.length === 0) break;
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
    countAnswers();
    const answeredMs = performance.now() - started;
    expect(unansweredCommands.map((one) => one.input)).toEqual([]);
    expect(commands.filter((one) => answersTo(one) !== 1).map((one) => one.input)).toEqual([]);
    for (const post of r.slack.responses) {
      expect(JSON.stringify(post.body)).not.toMatch(/failed inside payops|\[object Object\]/);
    }

    expect(thrown).toEqual([]);
    // The only error lines are Bolt's own: for requests no listener took (answered 404 after
    // its wait) and for those it failed on (500). None from payops.
    expect(errorLines.filter((line) => !/"component":"bolt"/.test(line))).toEqual([]);
    // Requests may have been made and rejected or cancelled, but nothing reached the provider as a write.
    expect(r.sandbox.requests.filter((request) => request.method !== 'GET')).toEqual([]);
    // Still alive and well afterwards.
    expect((await ask(r, 'me')).shown).toContain('cus_acme01');

    const statuses = new Map<string, number>();
    for (const one of sent) {
      const key = `${one.input.kind} ${one.status}`;
      statuses.set(key, (statuses.get(key) ?? 0) + 1);
    }
    console.info(
      `input fuzz (seed ${SEED}): ${inputs.length} inputs sent in ${Math.round(sentMs)} ms, all commands answered after ${Math.round(answeredMs)} ms; ${[...statuses].map(([key, count]) => `${key}: ${count}`).join(', ')}; ${boltFailures.length} failed inside Bolt, ${errorLines.length} Bolt error lines; ${r.slack.calls.length} Slack calls, ${r.slack.responses.length} response_url posts`,
    );
  }, 180_000);
});
