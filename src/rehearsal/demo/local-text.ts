/**
 * What Slack draws on the reader's side, drawn for a terminal: emoji codes as the characters
 * themselves, and times (Slack's `<!date^…>` tokens and ISO timestamps) in the local time zone.
 */

/** The emoji payops' messages use; any other `:name:` stays as typed. */
const EMOJI: Readonly<Record<string, string>> = {
  arrows_counterclockwise: '🔄',
  bell: '🔔',
  grey_question: '❔',
  hourglass: '⏳',
  no_entry: '⛔',
  no_entry_sign: '🚫',
  octagonal_sign: '🛑',
  warning: '⚠️',
  white_check_mark: '✅',
  x: '❌',
};

export function emojiToText(text: string): string {
  return text.replace(/:([a-z0-9_+-]+):/g, (whole, name: string) =>
    Object.hasOwn(EMOJI, name) ? (EMOJI[name] as string) : whole,
  );
}

/** Where "now" and "local" are: the machine's, unless a test fixes them. */
export interface Clock {
  readonly now?: () => number;
  /** An IANA zone such as `Europe/Paris`; the machine's own by default. */
  readonly timeZone?: string;
}

/** An ISO timestamp with a zone, as payops and the provider write them. */
const ISO_TIME =
  /\b\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?(?:Z|[+-]\d{2}:?\d{2})\b/g;

/** How an ISO timestamp found in text is shown: as Slack's own date tokens payops uses. */
const ISO_FORMAT = '{date_short_pretty} {time_secs}';

/** Every ISO timestamp in `text` as a local time, e.g. `today 14:03:07`. */
export function isoTimesToText(text: string, clock: Clock = {}): string {
  return text.replace(ISO_TIME, (iso) => {
    const millis = Date.parse(iso);
    return Number.isNaN(millis) ? iso : formatDate(millis, ISO_FORMAT, clock);
  });
}

/**
 * The inside of a `<!date^seconds^format|fallback>` token as Slack shows it, in local time; the
 * fallback when the token is malformed. Supports the format tokens Slack documents.
 */
export function dateTokenToText(inner: string, clock: Clock = {}): string {
  const bar = inner.indexOf('|');
  const fallback = bar === -1 ? '' : inner.slice(bar + 1);
  const [, seconds = '', format = ''] = (bar === -1 ? inner : inner.slice(0, bar)).split('^');
  if (!/^\d{1,12}$/.test(seconds) || format === '') return fallback;
  return formatDate(Number(seconds) * 1000, format, clock);
}

function formatDate(millis: number, format: string, clock: Clock): string {
  const now = clock.now?.() ?? Date.now();
  const parts = localParts(millis, clock.timeZone);
  const pretty = (base: string): string => {
    const days = dayNumber(parts) - dayNumber(localParts(now, clock.timeZone));
    return days === 0 ? 'today' : days === -1 ? 'yesterday' : days === 1 ? 'tomorrow' : base;
  };
  const date = `${Number(parts.day)} ${parts.month} ${parts.year}`;
  const short = `${Number(parts.day)} ${parts.month.slice(0, 3)} ${parts.year}`;
  const long = `${parts.weekday} ${date}`;
  const tokens: Record<string, string> = {
    date_num: `${parts.year}-${parts.monthNumber}-${parts.day}`,
    date,
    date_short: short,
    date_long: long,
    date_pretty: pretty(date),
    date_short_pretty: pretty(short),
    date_long_pretty: pretty(long),
    time: `${parts.hour}:${parts.minute}`,
    time_secs: `${parts.hour}:${parts.minute}:${parts.second}`,
    ago: ago(now - millis),
  };
  return format.replace(/\{(\w+)\}/g, (whole, name: string) => tokens[name] ?? whole);
}

interface LocalParts {
  year: string;
  month: string;
  monthNumber: string;
  day: string;
  weekday: string;
  hour: string;
  minute: string;
  second: string;
}

function localParts(millis: number, timeZone: string | undefined): LocalParts {
  const format = (options: Intl.DateTimeFormatOptions) =>
    Object.fromEntries(
      new Intl.DateTimeFormat('en-GB', { ...options, timeZone, hourCycle: 'h23' })
        .formatToParts(millis)
        .map((part) => [part.type, part.value]),
    );
  const named = format({ year: 'numeric', month: 'long', weekday: 'long' });
  const numbers = format({
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
    hour: '2-digit',
    minute: '2-digit',
    second: '2-digit',
  });
  return {
    year: numbers.year ?? '',
    month: named.month ?? '',
    monthNumber: numbers.month ?? '',
    day: numbers.day ?? '',
    weekday: named.weekday ?? '',
    hour: numbers.hour ?? '',
    minute: numbers.minute ?? '',
    second: numbers.second ?? '',
  };
}

/** The local calendar day as a number of days, so two dates compare across month ends. */
function dayNumber(parts: LocalParts): number {
  return (
    Date.UTC(Number(parts.year), Number(parts.monthNumber) - 1, Number(parts.day)) / 86_400_000
  );
}

const UNITS: readonly [string, number][] = [
  ['day', 86_400_000],
  ['hour', 3_600_000],
  ['minute', 60_000],
];

/** Slack's `{ago}`: `3 minutes ago`, or `in 2 hours` for a time still to come. */
function ago(elapsedMs: number): string {
  const size = Math.abs(elapsedMs);
  const unit = UNITS.find(([, ms]) => size >= ms);
  if (unit === undefined) return elapsedMs >= 0 ? 'just now' : 'in a few seconds';
  const count = Math.floor(size / unit[1]);
  const amount = `${count} ${unit[0]}${count === 1 ? '' : 's'}`;
  return elapsedMs >= 0 ? `${amount} ago` : `in ${amount}`;
}
