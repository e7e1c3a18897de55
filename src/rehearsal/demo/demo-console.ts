import { clearLine, createInterface, cursorTo, type Interface } from 'node:readline';
import { parseHomeButton } from '../../slack/blocks/home.ts';
import { parseApproveButton } from '../../slack/interaction-ids.ts';
import {
  dmChannelFor,
  isObject,
  type JsonObject,
  type SlackDriver,
  type SlackEmulation,
  type SlackMessage,
} from '../sandbox/slack.ts';
import type { WorkspaceDirectory } from './demo-directory.ts';
import {
  type FormField,
  type FormValues,
  filledView,
  formFields,
  initialFormValues,
  missingFields,
  readAnswer,
  readAssignments,
  stateValues,
} from './demo-form.ts';
import type { Clock } from './local-text.ts';
import {
  messageToText,
  PLAIN_STYLE,
  type RenderOptions,
  type ShownButton,
  type TextRendering,
  type TextStyle,
  viewToText,
} from './to-text.ts';

const NO_FORM_OPEN =
  'No form is open. A form opens from a command with no fields (/pay payout) or a button that asks for one (Reject).\n';

/**
 * The demo's console: a person types `/pay …` as someone in the emulated workspace, the command
 * reaches the real bot as a correctly signed Slack request, and every message or modal the bot
 * then shows anywhere is printed as text. Buttons keep one reference for as long as their
 * message shows them; a modal with inputs is a form to fill in and submit. Lines in, text out:
 * tests and the tour drive it without a TTY.
 */

export interface DemoConsoleOptions {
  /** A stream read line by line, or the lines themselves (the tour's script). */
  readonly input: NodeJS.ReadableStream | AsyncIterable<string>;
  readonly output: NodeJS.WritableStream;
  readonly emulation: SlackEmulation;
  /** The bot's Slack endpoint, `http://127.0.0.1:PORT/slack/events`. */
  readonly botUrl: string;
  readonly directory: WorkspaceDirectory;
  /** Who types first, by name, and where (a channel id). */
  readonly user: string;
  readonly channel: string;
  /** The bot's slash command; default `/pay`. */
  readonly command?: string;
  /**
   * A real terminal: line editing and history, the terminal echoes what is typed, and what the
   * bot does while the person is typing is printed above the prompt.
   */
  readonly terminal?: boolean;
  /** Repeat each line read after the prompt, so a piped session reads like a transcript. */
  readonly echo?: boolean;
  readonly style?: TextStyle;
  /** The reader's "now" and time zone; the machine's by default. */
  readonly clock?: Clock;
  /** How long to wait for the bot to show anything; default 10 s. */
  readonly answerTimeoutMs?: number;
  /** When to say "waiting…"; default 1 s. */
  readonly waitingNoticeMs?: number;
  /** How long the bot must stay quiet after its first answer before the prompt returns. */
  readonly settleMs?: number;
  /** Added to the timeout message, e.g. where the bot's log is. */
  readonly timeoutHint?: string;
  /** Aborting ends the console as `quit` would, once the current command is done. */
  readonly signal?: AbortSignal;
}

/** Runs the console until `quit`, the end of the input (Ctrl-D) or the signal. */
export async function runDemoConsole(options: DemoConsoleOptions): Promise<void> {
  await new DemoConsole(options).run();
}

type Surface =
  | { readonly message: { readonly channel: string; readonly ts: string } }
  | { readonly view: { readonly id: string } };

/** A button shown so far, with where it is, so a click can be sent for it. */
export interface Clickable extends ShownButton {
  readonly surface: Surface;
  /** Set for an ephemeral message: the one person who sees it, and so may click it. */
  readonly visibleTo: string | undefined;
}

/** Something the bot did that a person would see, or that failed where they would have. */
type Sighting =
  | { readonly kind: 'message'; readonly message: SlackMessage; readonly edited: boolean }
  | { readonly kind: 'removed'; readonly channelId: string }
  | {
      readonly kind: 'view';
      readonly method: string;
      readonly view: JsonObject;
      /** Whose Home tab, for views.publish. */
      readonly homeOf?: string;
    }
  | { readonly kind: 'failure'; readonly what: string; readonly detail: string };

const VIEW_VERBS: Readonly<Record<string, string>> = {
  'views.open': 'opened a modal',
  'views.push': 'pushed a modal',
  'views.update': 'updated a modal',
};

/** How many messages `show` prints of a channel. */
const SHOWN_MESSAGES = 5;
/** How long `home` waits for payops to draw the Home tab it was told is open. */
const HOME_DRAW_MS = 5_000;
const DEFAULT_WAIT_SECONDS = 10;
/** Console commands that wait while a form is open, as Slack's modal keeps the rest out of reach. */
const CONSOLE_WORDS = new Set(['as', 'in', 'click', 'wait', 'home', 'file']);

/** A modal with inputs the current person is filling in. */
interface OpenForm {
  readonly viewId: string;
  readonly userId: string;
  values: FormValues;
}

interface LineReader {
  /** The next line typed after `prompt`; undefined once the input has ended. */
  read(prompt: string): Promise<string | undefined>;
  close(): void;
}

export class DemoConsole {
  private readonly driver: SlackDriver;
  private readonly emulation: SlackEmulation;
  private readonly directory: WorkspaceDirectory;
  private readonly style: TextStyle;
  private readonly command: string;
  private userId: string;
  private channelId: string;
  /** Every button shown, by reference, in the order first shown. */
  private readonly buttons = new Map<string, Clickable>();
  /** A button's identity (its surface, action and value) → its reference. */
  private readonly refs = new Map<string, string>();
  /** Each file shown in a message, by its Slack id → its reference, in the order first shown. */
  private readonly fileRefs = new Map<string, string>();
  private form: OpenForm | undefined;
  /** Per channel, each message's ts → the ts of its last edit ('' if never edited). */
  private seen: Map<string, Map<string, string>>;
  private callsSeen: number;
  private responsesSeen: number;

  constructor(private readonly options: DemoConsoleOptions) {
    this.emulation = options.emulation;
    this.directory = options.directory;
    this.driver = options.emulation.driver(options.botUrl);
    this.style = options.style ?? PLAIN_STYLE;
    this.command = options.command ?? '/pay';
    const user = options.directory.findUser(options.user);
    if (user === undefined) throw new Error(`demo console: no user ${options.user}`);
    this.userId = user.id;
    this.channelId = options.channel;
    this.callsSeen = this.emulation.calls.length;
    this.responsesSeen = this.emulation.responses.length;
    this.seen = this.snapshot();
  }

  async run(): Promise<void> {
    const reader = this.openReader();
    try {
      for (;;) {
        const line = await reader.read(this.promptText());
        if (line === undefined) {
          // The input ended at a prompt (Ctrl-D): leave the terminal on a fresh line.
          this.write('\n');
          return;
        }
        if (!(await this.handle(line.trim(), reader))) return;
        if (this.options.signal?.aborted) return;
      }
    } finally {
      reader.close();
    }
  }

  /** The button most recently shown that `matches`: how a script finds what to click. */
  findButton(matches: (button: Clickable) => boolean): Clickable | undefined {
    return [...this.buttons.values()].reverse().find(matches);
  }

  /**
   * Waits until `condition` holds (after the bot did something), then prints what the bot did
   * meanwhile. Rejects, once what came is printed, when it does not hold within `timeoutMs`.
   */
  async showWhen(condition: () => boolean, what: string, timeoutMs = 15_000): Promise<void> {
    const held = await happens(this.emulation.waitFor(condition, { timeoutMs }));
    if (held) await this.settle(timeoutMs);
    this.printNew();
    if (!held) throw new Error(`no ${what} within ${timeoutMs / 1000} s`);
  }

  // ---- reading lines ----

  private openReader(): LineReader {
    const { input, signal } = this.options;
    const aborted = new Promise<undefined>((resolve) => {
      if (signal?.aborted) resolve(undefined);
      signal?.addEventListener('abort', () => resolve(undefined), { once: true });
    });
    if (!('pipe' in input)) return this.scriptReader(input[Symbol.asyncIterator](), aborted);
    const terminal = this.options.terminal ?? false;
    const lines = createInterface({
      input,
      ...(terminal ? { output: this.options.output } : {}),
      terminal,
      crlfDelay: Number.POSITIVE_INFINITY,
    });
    // Ctrl-C at the prompt quits like Ctrl-D; without a listener readline would only pause.
    lines.on('SIGINT', () => lines.close());
    signal?.addEventListener('abort', () => lines.close(), { once: true });
    const iterator = lines[Symbol.asyncIterator]();
    if (!terminal) {
      const reader = this.scriptReader(iterator, aborted);
      return { read: reader.read, close: () => lines.close() };
    }
    return {
      read: async (prompt) => {
        lines.setPrompt(prompt);
        lines.prompt();
        const idle = { done: false };
        void this.showWhileIdle(idle, lines);
        const next = await Promise.race([iterator.next(), aborted]);
        idle.done = true;
        return next?.done === false ? next.value : undefined;
      },
      close: () => lines.close(),
    };
  }

  /** Lines from a pipe or a script: the prompt is written here, and the line echoed after it. */
  private scriptReader(iterator: AsyncIterator<string>, aborted: Promise<undefined>): LineReader {
    return {
      read: async (prompt) => {
        // Prompted once the line is there, so what a script says before a line comes first.
        const pending = iterator.next();
        // Left running when stopped: a script's step that then fails must not crash the process.
        pending.catch(() => {});
        const next = await Promise.race([pending, aborted]);
        this.write(prompt);
        if (next === undefined || next.done) return undefined;
        if (this.options.echo) this.write(`${next.value}\n`);
        return next.value;
      },
      close: () => {
        void iterator.return?.();
      },
    };
  }

  /** On a terminal, what the bot does while the person types is printed above the prompt. */
  private async showWhileIdle(idle: { done: boolean }, lines: Interface): Promise<void> {
    while (!idle.done) {
      // Bounded waits, so that a finished console never has a timer holding the process.
      await happens(
        this.emulation.waitFor(() => idle.done || this.sightings().length > 0, {
          timeoutMs: 1_000,
        }),
      );
      if (idle.done || this.sightings().length === 0) continue;
      await this.settle(this.options.answerTimeoutMs ?? 10_000);
      if (idle.done) return;
      clearLine(this.options.output, 0);
      cursorTo(this.options.output, 0);
      this.printNew();
      lines.setPrompt(this.promptText());
      lines.prompt(true);
    }
  }

  private promptText(): string {
    const who = `${this.directory.userName(this.userId)}@${this.directory.place(this.channelId)}`;
    const form = this.form && this.formTitle(this.form);
    return form ? `${who} [${form}]> ` : `${who}> `;
  }

  // ---- commands ----

  /** Runs one console line; false once the console should stop. */
  private async handle(line: string, reader: LineReader): Promise<boolean> {
    const [word = '', ...rest] = line.split(/\s+/);
    const argument = rest.join(' ');
    const command = word.toLowerCase();
    if (command === 'quit' || command === 'exit') return false;
    if (command === 'help' || command === '?') {
      this.help();
      return true;
    }
    if (this.form !== undefined) {
      await this.handleForm(this.form, line, reader);
      return true;
    }
    switch (command) {
      case '':
        break;
      case 'as':
        this.actAs(argument);
        break;
      case 'in':
        this.moveTo(argument);
        break;
      case 'click':
        await this.click(argument);
        break;
      case 'show':
        this.showChannel(argument);
        break;
      case 'home':
        await this.openHome();
        break;
      case 'file':
        this.showFile(argument);
        break;
      case 'upload':
        this.upload(argument);
        break;
      case 'wait':
        await this.wait(argument);
        break;
      case 'fill':
      case 'submit':
      case 'cancel':
        this.write(NO_FORM_OPEN);
        break;
      default:
        if (word.startsWith('/')) await this.slashCommand(word, line.slice(word.length).trim());
        else if (word.includes('=')) this.write(NO_FORM_OPEN);
        else this.write(`"${word}" is not a console command. Type help to see them.\n`);
    }
    return true;
  }

  private help(): void {
    const people = this.directory.people().map((user) => user.name);
    const channels = this.directory.channelIds().map((id) => this.directory.place(id));
    const rows: [string, string][] = this.form
      ? [
          ['name=value …', 'fill in fields; quote a value with spaces, or let the line run on'],
          ['fill', 'be asked for each field in turn (Enter keeps what it holds)'],
          ['submit [name=value …]', 'send the form to payops'],
          ['show', 'the form as filled in so far'],
          ['cancel', 'close the form without sending it'],
        ]
      : [
          [
            `${this.command} <words>`,
            `run payops as the current person, here (try ${this.command} help)`,
          ],
          ['click <n>', 'click button [n] of any message shown, as the current person'],
          ['click <label> #<n>', 'click the button so labelled of request #n (click approve #3)'],
          ['as <name>', `become someone else: ${people.join(', ')}`],
          ['in <#channel>', `go to another channel: ${channels.join(', ')}`],
          ['show [#channel]', `the last ${SHOWN_MESSAGES} messages of a channel as they are now`],
          ['home', "open the current person's Home tab in the payops app"],
          ['file <n>', 'print file [n] of any message shown'],
          [
            'upload <name> [text]',
            'share a file here as the current person (its text: the words after the name)',
          ],
          ['wait [seconds]', `show what payops does next (default ${DEFAULT_WAIT_SECONDS} s)`],
        ];
    rows.push(['help', 'this list'], ['quit', 'stop everything (Ctrl-D does too)']);
    const width = Math.max(...rows.map(([usage]) => usage.length)) + 2;
    this.write(
      [
        this.form ? 'While a form is open:' : 'Console commands:',
        ...rows.map(([usage, meaning]) => `  ${usage.padEnd(width)}${meaning}`),
        '',
      ].join('\n'),
    );
  }

  private actAs(typed: string): void {
    const user = this.directory.findUser(typed);
    if (user === undefined || user.is_bot) {
      const people = this.directory.people().map((person) => person.name);
      this.write(`There is no one called "${typed}" here. People: ${people.join(', ')}.\n`);
      return;
    }
    if (user.deleted) {
      this.write(
        `${user.name}'s account is deactivated: Slack would not let them type commands.\n`,
      );
      return;
    }
    this.userId = user.id;
    this.write(`You are now @${user.name} (${user.real_name}).\n`);
  }

  /** The channel typed (`#approvals`, `approvals` or its id), or the current one if none. */
  private channelTyped(typed: string): string | undefined {
    if (typed === '') return this.channelId;
    const channelId = this.directory.findChannel(typed);
    if (channelId === undefined) {
      const channels = this.directory.channelIds().map((id) => this.directory.place(id));
      this.write(`There is no channel "${typed}" here. Channels: ${channels.join(', ')}.\n`);
    }
    return channelId;
  }

  private moveTo(typed: string): void {
    const channelId = this.channelTyped(typed);
    if (channelId === undefined) return;
    this.channelId = channelId;
    this.write(`You are now in ${this.directory.place(channelId)}.\n`);
  }

  private showChannel(typed: string): void {
    const channelId = this.channelTyped(typed);
    if (channelId === undefined) return;
    const { messages, ephemeral } = this.emulation.channel(channelId);
    const visible = [
      ...messages,
      ...ephemeral.filter((message) => message.ephemeralTo === this.userId),
    ]
      .sort((a, b) => compareTs(a.ts, b.ts))
      .slice(-SHOWN_MESSAGES);
    const place = this.directory.place(channelId);
    if (visible.length === 0) {
      this.write(`Nothing has been posted in ${place} yet.\n`);
      return;
    }
    const last = visible.length === 1 ? 'its last message' : `its last ${visible.length} messages`;
    this.write(this.style.dim(`${place} now, ${last}:\n`));
    this.print(visible.map((message) => ({ kind: 'message', message, edited: false })));
  }

  /**
   * Opens the current person's Home tab as Slack does (an app_home_opened event), shows what
   * payops draws there, or, when it draws nothing new, the Home tab as Slack still holds it.
   */
  private async openHome(): Promise<void> {
    const callsBefore = this.emulation.calls.length;
    const held = this.emulation.homeView(this.userId);
    const event = {
      type: 'app_home_opened',
      user: this.userId,
      channel: dmChannelFor(this.userId),
      tab: 'home',
      ...(held === undefined ? {} : { view: held }),
    };
    if ((await this.deliver(() => this.driver.event({ event }))) === undefined) return;
    const drawn = () =>
      this.emulation.calls
        .slice(callsBefore)
        .some((call) => call.method === 'views.publish' && call.args.user_id === this.userId);
    const timeoutMs = Math.min(this.options.answerTimeoutMs ?? HOME_DRAW_MS, HOME_DRAW_MS);
    const published = await happens(this.emulation.waitFor(drawn, { timeoutMs }));
    if (published) await this.settle(timeoutMs);
    this.printNew();
    if (published) return;
    const home = this.emulation.homeView(this.userId);
    if (home === undefined) {
      this.write('payops has not drawn a Home tab for you.\n');
      return;
    }
    this.printView('Your Home tab, as payops last drew it:', home);
  }

  private showFile(typed: string): void {
    const ref = typed.replace(/^\[|\]$/g, '');
    const fileId = [...this.fileRefs].find(([, shown]) => shown === ref)?.[0];
    const file = fileId === undefined ? undefined : this.emulation.file(fileId);
    if (file === undefined) {
      this.write(
        this.fileRefs.size === 0
          ? 'No file has been shown yet.\n'
          : `There is no file [${ref}]: files shown so far are [1] to [${this.fileRefs.size}].\n`,
      );
      return;
    }
    const text = (file.bytes?.toString('utf8') ?? '').replace(/\n$/, '');
    this.show(`[file ${ref}] ${file.filename}:`, { lines: text.split('\n'), buttons: [] });
  }

  /**
   * The current person shares a file in the current channel, as one drops a document in Slack:
   * its id is what `file=` names on a request.
   */
  private upload(typed: string): void {
    const [name = '', ...words] = typed.trim().split(/\s+/);
    if (name === '') {
      this.write('Name the file, e.g. upload invoice-2291.pdf Invoice 2291: 25.00 USDC\n');
      return;
    }
    const bytes = Buffer.from(`${words.join(' ') || name}\n`);
    const file = this.emulation.uploadFileAs(this.userId, {
      name,
      bytes,
      channelId: this.channelId,
    });
    this.write(
      `You shared ${name} (${bytes.length} bytes) in ${this.directory.place(this.channelId)}: its file id is ${file.id}, e.g. file=${file.id} on a payout.\n`,
    );
  }

  private async wait(typed: string): Promise<void> {
    const seconds = typed === '' ? DEFAULT_WAIT_SECONDS : Number(typed);
    if (!Number.isFinite(seconds) || seconds <= 0 || seconds > 600) {
      this.write('Say how many seconds to wait, e.g. wait 5 (at most 600).\n');
      return;
    }
    await this.showAnswers(seconds * 1000, false);
  }

  private async slashCommand(command: string, text: string): Promise<void> {
    if (command !== this.command) {
      this.write(`Only ${this.command} is installed in this workspace.\n`);
      return;
    }
    const callsBefore = this.emulation.calls.length;
    const sent = await this.deliver(() =>
      this.driver.slashCommand({ command, text, userId: this.userId, channelId: this.channelId }),
    );
    if (sent === undefined) return;
    // The command's own answer, not a notice it was queued behind, returns the prompt.
    const answered = () =>
      this.emulation.responses.some((post) => post.id === sent.responseUrlId) ||
      this.emulation.calls
        .slice(callsBefore)
        .some(
          (call) =>
            (call.method === 'views.open' && call.args.trigger_id === sent.triggerId) ||
            (call.method === 'chat.postEphemeral' &&
              call.args.user === this.userId &&
              call.args.channel === this.channelId),
        );
    await this.showAnswers(undefined, true, answered);
  }

  private async click(typed: string): Promise<void> {
    const named = /^([a-z][a-z ]*?)\s+#?(\d+)$/i.exec(typed.trim());
    const button = named
      ? await this.buttonOfRequest(named[1] as string, Number(named[2]))
      : this.buttonByRef(typed.replace(/^\[|\]$/g, ''));
    if (button === undefined) return;
    if (button.visibleTo !== undefined && button.visibleTo !== this.userId) {
      const viewer = this.directory.userName(button.visibleTo);
      this.write(`Only @${viewer} sees that message, so only they can click its buttons.\n`);
      return;
    }
    // Slack shows a message as it is now: a button payops has since taken off cannot be clicked.
    const current = this.currentElement(button);
    if (typeof current === 'string') {
      this.write(`${current}\n`);
      return;
    }
    this.write(`@${this.directory.userName(this.userId)} clicks [${button.ref}] ${button.label}\n`);
    const sent = await this.deliver(() =>
      this.driver.blockAction({
        userId: this.userId,
        actionId: button.actionId,
        ...(current.blockId === undefined ? {} : { blockId: current.blockId }),
        ...button.surface,
      }),
    );
    if (sent !== undefined) await this.showAnswers();
  }

  private buttonByRef(ref: string): Clickable | undefined {
    const button = this.buttons.get(ref);
    if (button === undefined) {
      this.write(
        this.buttons.size === 0
          ? 'No button has been shown yet.\n'
          : `There is no button [${ref}]: buttons shown so far are [1] to [${this.buttons.size}].\n`,
      );
    }
    return button;
  }

  /**
   * `approve #3`: the latest button of request #3 whose label starts with the words. A script
   * names it so whatever order the bot's messages arrive in, and waits for it to be shown.
   */
  private async buttonOfRequest(label: string, requestId: number): Promise<Clickable | undefined> {
    const wanted = label.toLowerCase();
    const find = () =>
      this.findButton(
        (button) =>
          button.label.toLowerCase().startsWith(wanted) &&
          (parseApproveButton(button.value) ?? parseHomeButton(button.value))?.id === requestId &&
          (button.visibleTo === undefined || button.visibleTo === this.userId),
      );
    const deadline = Date.now() + (this.options.answerTimeoutMs ?? 10_000);
    let button = find();
    while (button === undefined && Date.now() < deadline) {
      const shown = await happens(
        this.emulation.waitFor(() => this.sightings().length > 0, {
          timeoutMs: deadline - Date.now(),
        }),
      );
      if (!shown) break;
      await this.settle(deadline - Date.now());
      this.printNew();
      button = find();
    }
    if (button === undefined) {
      this.write(`No "${label}" button of request #${requestId} is shown to you.\n`);
    }
    return button;
  }

  /** Where the button is in its message's or view's current version, or why it is not there. */
  private currentElement(button: Clickable): { blockId: string | undefined } | string {
    const { surface } = button;
    const holder =
      'message' in surface
        ? this.emulation.message(surface.message.channel, surface.message.ts)
        : this.emulation.view(surface.view.id);
    if (holder === undefined) return `The message with [${button.ref}] is no longer there.`;
    const blocks: unknown[] = Array.isArray(holder.blocks) ? holder.blocks : [];
    for (const block of blocks.filter(isObject)) {
      const elements = [
        block.accessory,
        ...(Array.isArray(block.elements) ? block.elements : []),
      ].filter(isObject);
      const found = elements.some(
        (element) =>
          element.action_id === button.actionId &&
          (button.value === undefined || element.value === button.value),
      );
      if (found)
        return { blockId: typeof block.block_id === 'string' ? block.block_id : undefined };
    }
    const where =
      'message' in surface
        ? ` (show ${this.directory.place(surface.message.channel)} shows it)`
        : '';
    return `payops has changed that message since: it no longer has [${button.ref}] ${button.label}${where}.`;
  }

  // ---- forms ----

  private async handleForm(form: OpenForm, line: string, reader: LineReader): Promise<void> {
    const [word = '', ...rest] = line.split(/\s+/);
    const fields = this.formFieldsOf(form);
    switch (word.toLowerCase()) {
      case '':
        return;
      case 'cancel':
        this.form = undefined;
        this.write('The form is closed; nothing was sent.\n');
        return;
      case 'show':
        this.showForm(form, 'payops shows a form:');
        return;
      case 'fill':
        await this.fillFieldByField(form, fields, reader);
        return;
      case 'submit': {
        const typed = rest.join(' ');
        if (typed !== '' && !this.assign(form, fields, typed)) return;
        await this.submit(form, fields);
        return;
      }
      default:
        if (word.startsWith('/') || CONSOLE_WORDS.has(word.toLowerCase())) {
          this.write(`A form is open: submit it or cancel it first.\n`);
          return;
        }
        if (!line.includes('=')) {
          this.write(
            `A form is open: fill it in (${fields.map((field) => `${field.name}=…`).join(' ')}), or type fill, submit or cancel.\n`,
          );
          return;
        }
        if (this.assign(form, fields, line)) {
          this.write('Type submit to send it, or set more fields.\n');
        }
    }
  }

  /** Sets `name=value …` on the form; says what is wrong and sets nothing on a mistake. */
  private assign(form: OpenForm, fields: readonly FormField[], line: string): boolean {
    const assignments = readAssignments(fields, line);
    if ('error' in assignments) {
      this.write(`${assignments.error}\n`);
      return false;
    }
    for (const [name, values] of assignments) form.values.set(name, values);
    return true;
  }

  private async fillFieldByField(
    form: OpenForm,
    fields: readonly FormField[],
    reader: LineReader,
  ): Promise<void> {
    this.write(this.style.dim('Type each value; Enter alone keeps what the field holds.\n'));
    for (const field of fields) {
      if (field.options !== undefined) {
        this.write(
          `${fieldTitle(field)}${field.multiple ? ', any of (comma-separated)' : ', one of'}:\n${field.options
            .map((option, index) => `  ${index + 1}) ${option.label}`)
            .join('\n')}\n`,
        );
      }
      for (;;) {
        const held = (form.values.get(field.name) ?? []).join(', ');
        const answer = await reader.read(`  ${fieldTitle(field)}${held ? ` [${held}]` : ''}> `);
        if (answer === undefined) return;
        if (answer.trim() === '') break;
        const values = readAnswer(field, answer);
        if (!('error' in values)) {
          form.values.set(field.name, values);
          break;
        }
        this.write(`  ${values.error}\n`);
      }
    }
    this.write('Type submit to send it, cancel to close it, or name=value to change a field.\n');
  }

  private async submit(form: OpenForm, fields: readonly FormField[]): Promise<void> {
    const missing = missingFields(fields, form.values);
    if (missing.length > 0) {
      // Slack's own client refuses to send a form with a required field empty.
      this.write(
        `Slack would not send the form yet: ${missing.map((field) => field.name).join(', ')} ${missing.length === 1 ? 'is' : 'are'} required.\n`,
      );
      return;
    }
    this.write(
      `@${this.directory.userName(this.userId)} submits ${this.formTitle(form) || 'the form'}\n`,
    );
    const sent = await this.deliver(() =>
      this.driver.viewSubmission({
        userId: form.userId,
        view: { id: form.viewId, state: { values: stateValues(fields, form.values) } },
      }),
    );
    if (sent === undefined) return;
    const ack = sent.ack;
    if (ack?.response_action === 'errors') {
      this.showFormErrors(fields, ack.errors);
      return;
    }
    this.form = undefined;
    if (ack?.response_action !== undefined && ack.response_action !== 'clear') {
      this.write(
        this.style.dim(`(payops answered response_action ${String(ack.response_action)})\n`),
      );
    }
    await this.showAnswers();
  }

  /** Each field's error on its own line, as Slack shows them under the fields. */
  private showFormErrors(fields: readonly FormField[], errors: unknown): void {
    const entries = isObject(errors)
      ? Object.entries(errors).filter(
          (entry): entry is [string, string] => typeof entry[1] === 'string',
        )
      : [];
    if (entries.length === 0) {
      this.write('payops refused the form without saying why. Fix it, or cancel.\n');
      return;
    }
    const nameOf = (blockId: string) =>
      fields.find((field) => field.blockId === blockId)?.name ?? blockId;
    this.write(
      [
        'payops did not accept the form; fix it and submit again, or cancel:',
        // Slack shows each message under its field; here the field's name leads, once.
        ...entries.map(([blockId, message]) =>
          message.startsWith(`${nameOf(blockId)}:`)
            ? `  ✗ ${message}`
            : `  ✗ ${nameOf(blockId)}: ${message}`,
        ),
        '',
      ].join('\n'),
    );
  }

  private formFieldsOf(form: OpenForm): FormField[] {
    return formFields(this.emulation.view(form.viewId));
  }

  private formTitle(form: OpenForm): string {
    const title = this.emulation.view(form.viewId)?.title;
    return isObject(title) && typeof title.text === 'string' ? title.text : '';
  }

  /** A modal shown: a form to fill in when it has inputs and a submit button. */
  private trackForm(view: JsonObject): void {
    if (view.type !== 'modal') return;
    const id = String(view.id);
    const fields = formFields(view);
    if (fields.length === 0 || !isObject(view.submit)) {
      if (this.form?.viewId === id) this.form = undefined;
      return;
    }
    // An update of the form being filled in keeps what was typed in the fields it still has.
    const kept = this.form?.viewId === id ? this.form.values : new Map<string, readonly string[]>();
    const values = initialFormValues(fields);
    for (const field of fields) {
      const typed = kept.get(field.name);
      if (typed !== undefined) values.set(field.name, typed);
    }
    this.form = { viewId: id, userId: this.userId, values };
  }

  private showForm(form: OpenForm, heading: string): void {
    const view = this.emulation.view(form.viewId);
    if (view === undefined) return;
    const fields = formFields(view);
    const rendering = viewToText(filledView(view, fields, form.values), this.renderOptions());
    this.show(heading, rendering);
    const example = fields.map((field) => `${field.name}=…`).join(' ');
    this.write(
      this.style.dim(
        `Fill it in with ${example} on one line, or type fill to be asked for each field; then submit (or cancel).\n`,
      ),
    );
  }

  // ---- talking to the bot ----

  /** Sends a signed request; says so and returns undefined when the bot did not take it. */
  private async deliver<T extends { status: number; body: string }>(
    send: () => Promise<T>,
  ): Promise<T | undefined> {
    let sent: T;
    try {
      sent = await send();
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      this.write(`Could not reach payops at ${this.options.botUrl}: ${reason}\n`);
      return undefined;
    }
    if (sent.status === 200) return sent;
    this.write(`payops refused the request: HTTP ${sent.status} ${sent.body.slice(0, 200)}\n`);
    return undefined;
  }

  /**
   * Waits for the bot to show something (saying "waiting…" if an answer it owes is slow, and
   * giving up at the timeout), then until it has been quiet a moment, so follow-ups print with
   * the first answer. `owed`: false when the person only waits to see what comes; `answered`:
   * what counts as the answer (by default, anything shown).
   */
  private async showAnswers(
    timeoutMs = this.options.answerTimeoutMs ?? 10_000,
    owed = true,
    answered: () => boolean = () => this.sightings().length > 0,
  ): Promise<void> {
    const notice = owed
      ? setTimeout(
          () => this.write(this.style.dim('waiting…\n')),
          this.options.waitingNoticeMs ?? 1_000,
        )
      : undefined;
    const shown = await happens(this.emulation.waitFor(answered, { timeoutMs }));
    clearTimeout(notice);
    if (shown) {
      await this.settle(timeoutMs);
    } else if (owed) {
      const hint = this.options.timeoutHint ? ` ${this.options.timeoutHint}` : '';
      this.write(`payops showed nothing within ${timeoutMs / 1000} s.${hint}\n`);
    } else {
      this.write(`Nothing new from payops in ${timeoutMs / 1000} s.\n`);
    }
    this.printNew();
  }

  private async settle(limitMs: number): Promise<void> {
    const settleMs = this.options.settleMs ?? 250;
    const deadline = Date.now() + limitMs;
    while (Date.now() < deadline) {
      const activity = this.activity();
      const changed = await happens(
        this.emulation.waitFor(() => this.activity() !== activity, { timeoutMs: settleMs }),
      );
      if (!changed) return;
    }
  }

  private activity(): number {
    return this.emulation.calls.length + this.emulation.responses.length;
  }

  // ---- printing ----

  /** Prints what the bot did since last time, and remembers it as seen. */
  private printNew(): void {
    this.print(this.sightings());
    this.seen = this.snapshot();
    this.callsSeen = this.emulation.calls.length;
    this.responsesSeen = this.emulation.responses.length;
  }

  private print(sightings: Sighting[]): void {
    for (const sighting of sightings) {
      if (sighting.kind === 'removed') {
        this.write(`payops deleted a message in ${this.directory.place(sighting.channelId)}.\n`);
      } else if (sighting.kind === 'failure') {
        this.write(this.style.dim(`(${sighting.what} failed: ${sighting.detail})\n`));
      } else if (sighting.kind === 'view') {
        this.printView(this.viewHeading(sighting), sighting.view);
      } else {
        const { message } = sighting;
        const surface = { message: { channel: message.channel, ts: message.ts } };
        const rendering = messageToText(message, this.renderOptions(surface));
        rendering.lines.push(...this.fileLines(message));
        this.show(this.messageHeading(sighting), rendering);
        this.remember(rendering, surface, message.ephemeralTo);
      }
    }
  }

  private viewHeading(sighting: Sighting & { kind: 'view' }): string {
    const { method, homeOf } = sighting;
    if (homeOf === undefined) return `payops ${VIEW_VERBS[method] ?? method}:`;
    const whose = homeOf === this.userId ? 'your' : `@${this.directory.userName(homeOf)}'s`;
    return `payops drew ${whose} Home tab:`;
  }

  /** The files a message shares, each with the reference `file n` prints it by. */
  private fileLines(message: SlackMessage): string[] {
    return (message.files ?? []).flatMap((fileId) => {
      const file = this.emulation.file(fileId);
      if (file === undefined) return [];
      const ref = this.fileRefs.get(fileId) ?? String(this.fileRefs.size + 1);
      this.fileRefs.set(fileId, ref);
      const size = `${(file.bytes?.length ?? 0).toLocaleString('en-US')} bytes`;
      const title = file.title === undefined ? '' : `: ${file.title}`;
      return [`📎 [file ${ref}] ${file.filename} (${size})${title}`];
    });
  }

  private printView(heading: string, view: JsonObject): void {
    this.trackForm(view);
    if (this.form?.viewId === String(view.id)) {
      this.showForm(this.form, heading);
      return;
    }
    const surface = { view: { id: String(view.id) } };
    const rendering = viewToText(view, this.renderOptions(surface));
    this.show(heading, rendering);
    this.remember(rendering, surface, undefined);
  }

  private renderOptions(surface?: Surface): RenderOptions {
    const inputName = ({ blockId, actionId }: { blockId: string | undefined; actionId: string }) =>
      this.form
        ? (this.formFieldsOf(this.form).find(
            (field) =>
              field.actionId === actionId && (blockId === undefined || field.blockId === blockId),
          )?.name ?? actionId)
        : actionId;
    return {
      directory: this.directory,
      style: this.style,
      inputName,
      ...(this.options.clock ? { clock: this.options.clock } : {}),
      ...(surface ? { buttonRef: (button) => this.refFor(surface, button) } : {}),
    };
  }

  /** A button keeps its reference for as long as its message or view shows it. */
  private refFor(surface: Surface, button: Omit<ShownButton, 'ref'>): string {
    const key = JSON.stringify([surface, button.actionId, button.value ?? null]);
    const known = this.refs.get(key);
    if (known !== undefined) return known;
    const ref = String(this.refs.size + 1);
    this.refs.set(key, ref);
    return ref;
  }

  private remember(
    rendering: TextRendering,
    surface: Surface,
    visibleTo: string | undefined,
  ): void {
    for (const button of rendering.buttons) {
      // Set anew, so the map's order is the order last shown, which findButton reads backwards.
      this.buttons.delete(button.ref);
      this.buttons.set(button.ref, { ...button, surface, visibleTo });
    }
  }

  private messageHeading(sighting: Sighting & { kind: 'message' }): string {
    const { message, edited } = sighting;
    const inThread = message.thread_ts !== undefined && message.thread_ts !== message.ts;
    const where = `${this.directory.place(message.channel)}${inThread ? ', in a thread' : ''}`;
    const action = edited ? `updated a message in ${where}` : `in ${where}`;
    if (message.ephemeralTo === undefined) return `payops ${action}:`;
    const viewer =
      message.ephemeralTo === this.userId
        ? 'you'
        : `@${this.directory.userName(message.ephemeralTo)}`;
    return `payops ${action} (only ${viewer} can see this):`;
  }

  private show(heading: string, rendering: TextRendering): void {
    const body = rendering.lines.map((line) => (line === '' ? '' : `  ${line}`));
    // A blank line after each answer keeps one answer apart from the next prompt.
    this.write([this.style.bold(heading), ...body, '', ''].join('\n'));
  }

  // ---- what changed since the last answer ----

  /** New, edited and deleted messages anywhere, then modals and failed attempts to show any. */
  private sightings(): Sighting[] {
    const messages: (Sighting & { kind: 'message' })[] = [];
    const removed: Sighting[] = [];
    for (const [channelId, now] of this.snapshot()) {
      const before = this.seen.get(channelId) ?? new Map<string, string>();
      for (const [ts, version] of now) {
        const seenVersion = before.get(ts);
        if (seenVersion === version) continue;
        const message = this.emulation.message(channelId, ts);
        if (message !== undefined)
          messages.push({ kind: 'message', message, edited: seenVersion !== undefined });
      }
      for (const ts of before.keys()) {
        if (!now.has(ts)) removed.push({ kind: 'removed', channelId });
      }
    }
    messages.sort((a, b) => compareTs(changedAt(a.message), changedAt(b.message)));
    return [...messages, ...removed, ...this.callSightings(), ...this.responseFailures()];
  }

  /** Views shown, each once as it last looked (a form opened then filled in is one sighting). */
  private callSightings(): Sighting[] {
    const sightings: Sighting[] = [];
    const views = new Map<string, number>();
    for (const call of this.emulation.calls.slice(this.callsSeen)) {
      const isView = call.method.startsWith('views.');
      if (call.response.ok && isView && isObject(call.response.view)) {
        const view = call.response.view;
        const earlier = views.get(String(view.id));
        const first = earlier === undefined ? undefined : sightings[earlier];
        const homeOf = call.method === 'views.publish' ? call.args.user_id : undefined;
        if (first?.kind === 'view') {
          sightings[earlier as number] = { ...first, view };
        } else {
          views.set(String(view.id), sightings.length);
          sightings.push({
            kind: 'view',
            method: call.method,
            view,
            ...(typeof homeOf === 'string' ? { homeOf } : {}),
          });
        }
      } else if (!call.response.ok && (isView || call.method.startsWith('chat.'))) {
        sightings.push({
          kind: 'failure',
          what: `payops' ${call.method} call`,
          detail: call.response.error ?? 'no error code',
        });
      }
    }
    return sightings;
  }

  private responseFailures(): Sighting[] {
    return this.emulation.responses
      .slice(this.responsesSeen)
      .filter((post) => post.status !== 200)
      .map((post) => ({
        kind: 'failure',
        what: "payops' answer to the response_url",
        detail: `HTTP ${post.status}`,
      }));
  }

  /** Every channel a person could look at, and any other the bot has written to. */
  private snapshot(): Map<string, Map<string, string>> {
    const channels = new Set([
      ...this.directory.channelIds(),
      ...this.directory.people().map((user) => dmChannelFor(user.id)),
      this.channelId,
      ...this.emulation.calls.flatMap((call) =>
        typeof call.response.channel === 'string' ? [call.response.channel] : [],
      ),
    ]);
    const snapshot = new Map<string, Map<string, string>>();
    for (const channelId of channels) {
      const { messages, ephemeral } = this.emulation.channel(channelId);
      snapshot.set(
        channelId,
        new Map(
          [...messages, ...ephemeral].map((message) => [message.ts, message.edited?.ts ?? '']),
        ),
      );
    }
    return snapshot;
  }

  private write(text: string): void {
    this.options.output.write(text);
  }
}

/** Whether an emulation wait saw its condition, rather than running out of time. */
function happens(wait: Promise<unknown>): Promise<boolean> {
  return wait.then(
    () => true,
    () => false,
  );
}

/** `Why is it rejected? (reason)`: the label, and the name to type when the label lacks it. */
function fieldTitle(field: FormField): string {
  return field.label.includes(field.name) ? field.label : `${field.label} (${field.name})`;
}

function changedAt(message: SlackMessage): string {
  return message.edited?.ts ?? message.ts;
}

/** Slack ts values are `seconds.micros`: compared as numbers without float rounding. */
function compareTs(a: string, b: string): number {
  const [aSeconds = '', aMicros = ''] = a.split('.');
  const [bSeconds = '', bMicros = ''] = b.split('.');
  return Number(aSeconds) - Number(bSeconds) || Number(aMicros) - Number(bMicros);
}
