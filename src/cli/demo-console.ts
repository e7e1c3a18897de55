import { createInterface, type Interface } from 'node:readline';
import {
  dmChannelFor,
  isObject,
  type JsonObject,
  type SlackChannel,
  type SlackDriver,
  type SlackEmulation,
  type SlackMessage,
  type SlackUser,
  type UserGroupConfig,
} from '../sandbox/slack.ts';
import {
  messageToText,
  type NameDirectory,
  type NumberedButton,
  PLAIN_STYLE,
  type TextRendering,
  type TextStyle,
  viewToText,
} from '../slack/blocks/to-text.ts';

/**
 * The demo's console: a person types `/pay …` as someone in the emulated workspace, the command
 * reaches the real bot as a correctly signed Slack request, and every message or modal the bot
 * then shows anywhere is printed as text. Streams in, text out: tests drive it without a TTY.
 */

export interface DemoWorkspace {
  readonly users: readonly SlackUser[];
  readonly channels: Readonly<Record<string, SlackChannel>>;
  readonly userGroups: Readonly<Record<string, UserGroupConfig>>;
}

/** The emulated workspace's names both ways: ids → names in answers, names → ids for `as`/`in`. */
export class WorkspaceDirectory implements NameDirectory {
  constructor(private readonly workspace: DemoWorkspace) {}

  userName(userId: string): string | undefined {
    return this.workspace.users.find((user) => user.id === userId)?.name;
  }

  channelName(channelId: string): string | undefined {
    return this.workspace.channels[channelId]?.name;
  }

  groupHandle(groupId: string): string | undefined {
    const group = this.workspace.userGroups[groupId];
    if (group === undefined) return undefined;
    // The emulation gives a group configured as a bare member list its lower-cased id as handle.
    return 'handle' in group ? group.handle : groupId.toLowerCase();
  }

  /** `erin`, `@erin`, `U0ERIN` or `<@U0ERIN>`. */
  findUser(typed: string): SlackUser | undefined {
    const key = typed
      .replace(/^<@|>$/g, '')
      .replace(/^@/, '')
      .toLowerCase();
    return this.workspace.users.find(
      (user) => user.name.toLowerCase() === key || user.id.toLowerCase() === key,
    );
  }

  /** `#payops`, `payops`, `C0PAYOPS` or `<#C0PAYOPS>`: the channel id. */
  findChannel(typed: string): string | undefined {
    const key = typed
      .replace(/^<#|>$/g, '')
      .replace(/^#/, '')
      .toLowerCase();
    return Object.entries(this.workspace.channels).find(
      ([id, channel]) => channel.name.toLowerCase() === key || id.toLowerCase() === key,
    )?.[0];
  }

  /** People who can type commands: not bots, not deactivated accounts. */
  people(): SlackUser[] {
    return this.workspace.users.filter((user) => !user.is_bot && !user.deleted);
  }

  channelIds(): string[] {
    return Object.keys(this.workspace.channels);
  }

  /** Where a message is: `#payops`, or `a DM with @bob`. */
  place(channelId: string): string {
    if (channelId.startsWith('D')) {
      const user = this.workspace.users.find(
        (candidate) => dmChannelFor(candidate.id) === channelId,
      );
      return `a DM with @${user?.name ?? channelId}`;
    }
    return `#${this.channelName(channelId) ?? channelId}`;
  }
}

export interface DemoConsoleOptions {
  readonly input: NodeJS.ReadableStream;
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
  /** A real terminal: line editing and history, and the terminal echoes what is typed. */
  readonly terminal?: boolean;
  /** Repeat each line read after the prompt, so a piped session reads like a transcript. */
  readonly echo?: boolean;
  readonly style?: TextStyle;
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

/** A button shown so far, with where it is, so a click can be sent for it. */
interface Clickable extends NumberedButton {
  readonly surface:
    | { readonly message: { readonly channel: string; readonly ts: string } }
    | { readonly view: { readonly id: string } };
  /** Set for an ephemeral message: the one person who sees it, and so may click it. */
  readonly visibleTo: string | undefined;
}

/** Something the bot did that a person would see, or that failed where they would have. */
type Sighting =
  | { readonly kind: 'message'; readonly message: SlackMessage; readonly edited: boolean }
  | { readonly kind: 'removed'; readonly channelId: string }
  | { readonly kind: 'view'; readonly method: string; readonly view: JsonObject }
  | { readonly kind: 'failure'; readonly what: string; readonly detail: string };

const VIEW_VERBS: Readonly<Record<string, string>> = {
  'views.open': 'opened a modal',
  'views.push': 'pushed a modal',
  'views.update': 'updated a modal',
  'views.publish': 'published a Home tab',
};

class DemoConsole {
  private readonly driver: SlackDriver;
  private readonly emulation: SlackEmulation;
  private readonly directory: WorkspaceDirectory;
  private readonly style: TextStyle;
  private readonly command: string;
  private userId: string;
  private channelId: string;
  private buttons: Clickable[] = [];
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
    const lines = createInterface({
      input: this.options.input,
      output: this.options.output,
      terminal: this.options.terminal ?? false,
      crlfDelay: Number.POSITIVE_INFINITY,
    });
    // Ctrl-C at the prompt quits like Ctrl-D; without a listener readline would only pause.
    lines.on('SIGINT', () => lines.close());
    this.options.signal?.addEventListener('abort', () => lines.close(), { once: true });
    let quit = false;
    this.prompt(lines);
    for await (const line of lines) {
      if (this.options.echo) this.write(`${line}\n`);
      quit = !(await this.handle(line.trim()));
      if (quit) break;
      this.prompt(lines);
    }
    // The input ended at a prompt (Ctrl-D): leave the terminal on a fresh line.
    if (!quit) this.write('\n');
    lines.close();
  }

  private prompt(lines: Interface): void {
    lines.setPrompt(
      `${this.directory.userName(this.userId)}@${this.directory.place(this.channelId)}> `,
    );
    lines.prompt();
  }

  /** Runs one console line; false once the console should stop. */
  private async handle(line: string): Promise<boolean> {
    const [word = '', ...rest] = line.split(/\s+/);
    const argument = rest.join(' ');
    switch (word.toLowerCase()) {
      case '':
        break;
      case 'quit':
      case 'exit':
        return false;
      case 'help':
      case '?':
        this.help();
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
      default:
        if (word.startsWith('/')) await this.slashCommand(word, line.slice(word.length).trim());
        else this.write(`"${word}" is not a console command. Type help to see them.\n`);
    }
    return true;
  }

  private help(): void {
    const people = this.directory.people().map((user) => user.name);
    const channels = this.directory.channelIds().map((id) => this.directory.place(id));
    const rows: [string, string][] = [
      [
        `${this.command} <words>`,
        `run payops as the current person, here (try ${this.command} help)`,
      ],
      ['as <name>', `become someone else: ${people.join(', ')}`],
      ['in <#channel>', `go to another channel: ${channels.join(', ')}`],
      ['click <n>', 'click button [n], of any message shown so far'],
      ['help', 'this list'],
      ['quit', 'stop everything (Ctrl-D does too)'],
    ];
    const width = Math.max(...rows.map(([usage]) => usage.length)) + 2;
    this.write(
      [
        'Console commands:',
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

  private moveTo(typed: string): void {
    const channelId = this.directory.findChannel(typed);
    if (channelId === undefined) {
      const channels = this.directory.channelIds().map((id) => this.directory.place(id));
      this.write(`There is no channel "${typed}" here. Channels: ${channels.join(', ')}.\n`);
      return;
    }
    this.channelId = channelId;
    this.write(`You are now in ${this.directory.place(channelId)}.\n`);
  }

  private async slashCommand(command: string, text: string): Promise<void> {
    if (command !== this.command) {
      this.write(`Only ${this.command} is installed in this workspace.\n`);
      return;
    }
    const sent = await this.deliver(() =>
      this.driver.slashCommand({ command, text, userId: this.userId, channelId: this.channelId }),
    );
    if (sent !== undefined) await this.showAnswers();
  }

  private async click(typed: string): Promise<void> {
    const button = this.buttons.find((candidate) => String(candidate.number) === typed);
    if (button === undefined) {
      const last = this.buttons.length;
      this.write(
        last === 0
          ? 'No button has been shown yet.\n'
          : `There is no button [${typed}]: buttons shown so far are [1] to [${last}].\n`,
      );
      return;
    }
    if (button.visibleTo !== undefined && button.visibleTo !== this.userId) {
      const viewer = this.directory.userName(button.visibleTo);
      this.write(`Only @${viewer} sees that message, so only they can click its buttons.\n`);
      return;
    }
    this.write(
      `@${this.directory.userName(this.userId)} clicks [${button.number}] ${button.label}\n`,
    );
    const sent = await this.deliver(() =>
      this.driver.blockAction({
        userId: this.userId,
        actionId: button.actionId,
        ...(button.blockId === undefined ? {} : { blockId: button.blockId }),
        ...button.surface,
      }),
    );
    if (sent !== undefined) await this.showAnswers();
  }

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
   * Waits for the bot to show something (saying "waiting…" if it is slow and giving up at the
   * timeout), then until it has been quiet a moment, so follow-ups print with the first answer.
   */
  private async showAnswers(): Promise<void> {
    const timeoutMs = this.options.answerTimeoutMs ?? 10_000;
    const notice = setTimeout(
      () => this.write(this.style.dim('waiting…\n')),
      this.options.waitingNoticeMs ?? 1_000,
    );
    const answered = await happens(
      this.emulation.waitFor(() => this.sightings().length > 0, { timeoutMs }),
    );
    clearTimeout(notice);
    if (answered) {
      await this.settle(timeoutMs);
    } else {
      const hint = this.options.timeoutHint ? ` ${this.options.timeoutHint}` : '';
      this.write(`payops showed nothing within ${timeoutMs / 1000} s.${hint}\n`);
    }
    this.print(this.sightings());
    this.seen = this.snapshot();
    this.callsSeen = this.emulation.calls.length;
    this.responsesSeen = this.emulation.responses.length;
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

  private print(sightings: Sighting[]): void {
    for (const sighting of sightings) {
      if (sighting.kind === 'removed') {
        this.write(`payops deleted a message in ${this.directory.place(sighting.channelId)}.\n`);
      } else if (sighting.kind === 'failure') {
        this.write(this.style.dim(`(${sighting.what} failed: ${sighting.detail})\n`));
      } else {
        // Numbered on from every button shown before: any of them can be clicked later.
        const { heading, rendering, surface, visibleTo } = this.present(
          sighting,
          this.buttons.length + 1,
        );
        this.show(heading, rendering);
        this.buttons.push(
          ...rendering.buttons.map((button) => ({ ...button, surface, visibleTo })),
        );
      }
    }
  }

  /** A message or modal as text, with where its buttons are and who may click them. */
  private present(
    sighting: Sighting & { kind: 'message' | 'view' },
    firstButton: number,
  ): { heading: string; rendering: TextRendering } & Pick<Clickable, 'surface' | 'visibleTo'> {
    const options = { directory: this.directory, style: this.style, firstButton };
    if (sighting.kind === 'view') {
      return {
        heading: `payops ${VIEW_VERBS[sighting.method] ?? sighting.method}:`,
        rendering: viewToText(sighting.view, options),
        surface: { view: { id: String(sighting.view.id) } },
        visibleTo: undefined,
      };
    }
    const { message } = sighting;
    return {
      heading: this.messageHeading(sighting),
      rendering: messageToText(message, options),
      surface: { message: { channel: message.channel, ts: message.ts } },
      visibleTo: message.ephemeralTo,
    };
  }

  private messageHeading(sighting: Sighting & { kind: 'message' }): string {
    const { message, edited } = sighting;
    const where = this.directory.place(message.channel);
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

  private callSightings(): Sighting[] {
    return this.emulation.calls.slice(this.callsSeen).flatMap((call): Sighting[] => {
      const isView = call.method.startsWith('views.');
      if (call.response.ok && isView && isObject(call.response.view)) {
        return [{ kind: 'view', method: call.method, view: call.response.view }];
      }
      if (!call.response.ok && (isView || call.method.startsWith('chat.'))) {
        return [
          {
            kind: 'failure',
            what: `payops' ${call.method} call`,
            detail: call.response.error ?? 'no error code',
          },
        ];
      }
      return [];
    });
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

function changedAt(message: SlackMessage): string {
  return message.edited?.ts ?? message.ts;
}

/** Slack ts values are `seconds.micros`: compared as numbers without float rounding. */
function compareTs(a: string, b: string): number {
  const [aSeconds = '', aMicros = ''] = a.split('.');
  const [bSeconds = '', bMicros = ''] = b.split('.');
  return Number(aSeconds) - Number(bSeconds) || Number(aMicros) - Number(bMicros);
}
