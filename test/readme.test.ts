import { execFile } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { PassThrough, Readable } from 'node:stream';
import { promisify } from 'node:util';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { configurationVariables } from '../src/config.ts';
import { parseCommand } from '../src/domain/commands.ts';
import { OPERATION_IDS, OPERATIONS } from '../src/domain/operations.ts';
import { isWriteCommandWord, parseWriteCommand } from '../src/domain/write-commands.ts';
import { runDemoConsole } from '../src/rehearsal/demo/demo-console.ts';
import { WorkspaceDirectory } from '../src/rehearsal/demo/demo-directory.ts';
import {
  DEFAULT_CHANNELS,
  DEFAULT_USER_GROUPS,
  DEFAULT_USERS,
  startSlackEmulation,
} from '../src/rehearsal/sandbox/slack.ts';
import { isApproverWord as isAdminWord } from '../src/slack/listeners/commands/approver.ts';

/**
 * The README promises only what exists: each command it shows is one payops, its `payops` bin,
 * npm or the demo console knows, and its configuration table, `.env.example` and the variables
 * the code reads are the same set.
 */

const ROOT = join(import.meta.dirname, '..');
const README = readFileSync(join(ROOT, 'README.md'), 'utf8');
const ENV_EXAMPLE = readFileSync(join(ROOT, '.env.example'), 'utf8');

const FENCE = /^```(\w*)\n([\s\S]*?)^```/gm;
const codeBlocks = [...README.matchAll(FENCE)].map(([, lang = '', body = '']) => ({ lang, body }));
const prose = README.replace(FENCE, '');
/** Inline code spans outside code blocks, with a table's `\|` read as `|`. */
const spans = [...prose.matchAll(/`([^`\n]+)`/g)].map(([, text = '']) =>
  text.replace(/\\\|/g, '|'),
);

/** The text of every `code` span and code block line, where commands are shown. */
const shown = [...spans, ...codeBlocks.flatMap((block) => block.body.split('\n'))];

/** `/pay <word> …` as typed: each occurrence, from `/pay` to the end of its span or line. */
const payCommands = shown.flatMap((text) =>
  [...text.matchAll(/(?:^|\s)\/pay(\s[^`]*)?$/g)].map(([, rest = '']) => rest.trim()),
);

describe('README: /pay commands', () => {
  it('shows some, so this test reads what it means to', () => {
    expect(payCommands.length).toBeGreaterThan(20);
  });

  it('every /pay word is a read, a write or an approver command payops knows', () => {
    const unknown = payCommands
      .map((text) => text.split(/\s+/)[0] ?? '')
      .filter((word) => word !== '' && !isKnownWord(word));
    expect(unknown, 'README names /pay commands payops does not have').toEqual([]);
  });

  it("the command tables' other words (`crypto-transfer …`) are commands too", () => {
    const rows = tableRows(section('Commands')).filter((row) => row[0]?.includes('`/pay '));
    const words = rows.flatMap((row) =>
      [...(row[0] ?? '').matchAll(/`([^`]+)`/g)].map(([, span = '']) =>
        (span.replace(/^\/pay\s+/, '').split(/\s+/)[0] ?? '').replace(/\\$/, ''),
      ),
    );
    expect(words.length).toBeGreaterThan(20);
    expect(
      words.filter((word) => !isKnownWord(word)),
      'README names unknown commands',
    ).toEqual([]);
  });

  it("a read's --options are options of that command", () => {
    const wrong = payCommands.flatMap((text) => {
      const [word = '', ...rest] = text.split(/\s+/);
      const options = OPERATION_IDS.filter((id) => OPERATIONS[id].command === word).flatMap((id) =>
        OPERATIONS[id].query.map((param) => `--${param.name}`),
      );
      return rest
        .map((token) => /^\[?(--[a-z-]+)/.exec(token)?.[1])
        .filter((option): option is string => option !== undefined && !options.includes(option))
        .map((option) => `/pay ${word} ${option}`);
    });
    expect(wrong, 'README gives /pay commands options they do not have').toEqual([]);
  });

  it('each /pay line of a code block runs as typed: a valid read, a complete write, an approver command', () => {
    const lines = codeBlocks
      .flatMap((block) => block.body.split('\n'))
      .filter((line) => line.startsWith('/pay '))
      .map((line) => line.slice('/pay '.length));
    expect(lines.length).toBeGreaterThan(0);
    const broken = lines.filter((text) => {
      const word = text.split(/\s+/)[0] ?? '';
      if (isWriteCommandWord(word)) return parseWriteCommand(text).kind === 'invalid';
      if (isAdminWord(word)) return false;
      const kind = parseCommand(text).kind;
      return kind === 'invalid' || kind === 'unknown';
    });
    expect(broken, "README's example commands payops would refuse").toEqual([]);
  });
});

describe("payops's own messages", () => {
  it('every `/pay <word>` they tell people to type is a command payops knows', () => {
    const named = sourceFiles(join(ROOT, 'src')).flatMap((file) =>
      // As the rehearsal tools write it, or after the configured name, quoted, in payops's own.
      [...readFileSync(file, 'utf8').matchAll(/(?:`\/pay|\\`\$\{command\}) ([a-z][a-z-]*)/g)].map(
        ([, word = '']) => ({ file: relative(ROOT, file), word }),
      ),
    );
    expect(named.length).toBeGreaterThan(20);
    expect(named.filter(({ word }) => !isKnownWord(word))).toEqual([]);
  });
});

function isKnownWord(word: string): boolean {
  if (isWriteCommandWord(word) || isAdminWord(word)) return true;
  return parseCommand(word).kind !== 'unknown';
}

const execFileAsync = promisify(execFile);

/** The bin from the sources, as `npm run` runs it; its `--help` is its own list of commands. */
async function payops(args: string[]): Promise<{ code: number; stdout: string }> {
  return execFileAsync(process.execPath, ['--import', 'tsx', 'src/cli/payops.ts', ...args], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '' },
  }).then(
    ({ stdout }) => ({ code: 0, stdout }),
    (error: { code: number; stdout: string }) => ({ code: error.code, stdout: error.stdout }),
  );
}

describe('README: payops and npm commands', () => {
  const binCommands = shown.flatMap((text) =>
    [
      ...text.matchAll(
        /(?:^|&& |dist\/cli\/)payops(?:\.js)? ([a-z][\w-]*)((?: (?:\[?--?[a-z][\w-]*\]?|[a-z][\w-]*))*)/g,
      ),
    ].map(([, name = '', args = '']) => ({
      name,
      args: args
        .trim()
        .split(/\s+/)
        .filter(Boolean)
        .map((arg) => arg.replace(/^\[|\]$/g, '')),
    })),
  );

  it('every `payops <command>` is a command of the bin, and its arguments are in its usage', async () => {
    expect(binCommands.length).toBeGreaterThan(5);
    const help = await payops(['--help']);
    expect(help.code).toBe(0);
    const commands = new Set(
      [...help.stdout.matchAll(/^ {2}([a-z][\w-]*) {2,}/gm)].map(([, name = '']) => name),
    );
    expect(commands.size).toBeGreaterThan(3);
    const unknown = binCommands.filter(({ name }) => !commands.has(name)).map(({ name }) => name);
    expect(unknown, 'README names payops commands the bin does not have').toEqual([]);

    const withArgs = [...new Set(binCommands.filter((c) => c.args.length > 0).map((c) => c.name))];
    const usages = new Map(
      await Promise.all(
        withArgs.map(async (name) => [name, (await payops([name, '--help'])).stdout] as const),
      ),
    );
    const wrong = binCommands.flatMap(({ name, args }) =>
      args
        .filter((arg) => !['--help', '-h'].includes(arg))
        .filter(
          (arg) => !new RegExp(`(^|[\\s\\[])${arg}([\\s\\]]|$)`, 'm').test(usages.get(name) ?? ''),
        )
        .map((arg) => `payops ${name} ${arg}`),
    );
    expect(wrong, 'README gives payops commands arguments their usage does not list').toEqual([]);
  });

  it('every `npm run <script>`, `npm start` and `npm test` is a script of package.json', () => {
    const { scripts } = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
      scripts: Record<string, string>;
    };
    // npm's own commands, not scripts.
    const npmCommands = ['ci', 'install'];
    const named = shown.flatMap((text) =>
      [...text.matchAll(/\bnpm (run )?([a-z][\w:-]*)/g)].map(([, run, name = '']) => ({
        run: Boolean(run),
        name,
      })),
    );
    expect(named.length).toBeGreaterThan(5);
    const missing = named
      .filter(
        ({ run, name }) => !Object.hasOwn(scripts, name) && (run || !npmCommands.includes(name)),
      )
      .map(({ run, name }) => `npm ${run ? 'run ' : ''}${name}`);
    expect(missing, 'README names npm scripts package.json does not have').toEqual([]);
  });
});

describe("README: the demo console's commands", () => {
  /**
   * The lines of the demo's transcript that are not `/pay`, and the words a paragraph about the
   * console puts in code: each must be something the console handles.
   */
  const consoleWords = [
    ...codeBlocks
      .filter((block) => block.lang === '' && /^\/pay /m.test(block.body))
      .flatMap((block) => block.body.split('\n'))
      .filter((line) => line.trim() !== '' && !line.startsWith('/')),
    ...prose
      .split(/\n\s*\n/)
      .filter((paragraph) => /\bconsole\b/.test(paragraph))
      .flatMap((paragraph) => [...paragraph.matchAll(/`([a-z]+)(?: [^`]*)?`/g)])
      .map(([, word = '']) => word)
      .filter((word) => !['npm', 'payops'].includes(word)),
  ].map((line) => line.split(/\s+/)[0] ?? '');

  it('each is handled by the console, not refused as "not a console command"', async () => {
    const words = [...new Set(consoleWords)];
    expect(words).toContain('click');
    const emulation = await startSlackEmulation();
    try {
      const output = new PassThrough();
      let printed = '';
      output.on('data', (chunk: Buffer) => {
        printed += chunk.toString();
      });
      // Each word with an argument no one has, so nothing reaches the bot; a stopping word last.
      const stops = ['quit', 'exit'];
      const ordered = [
        ...words.filter((w) => !stops.includes(w)),
        ...words.filter((w) => stops.includes(w)),
      ];
      await runDemoConsole({
        input: Readable.from(ordered.map((word) => `${word} nobody-here\n`)),
        output,
        emulation,
        botUrl: 'http://127.0.0.1:9/slack/events',
        directory: new WorkspaceDirectory({
          users: DEFAULT_USERS,
          channels: DEFAULT_CHANNELS,
          userGroups: DEFAULT_USER_GROUPS,
        }),
        user: 'alice',
        channel: 'C0PAYOPS',
      });
      const refused = words.filter((word) =>
        printed.includes(`"${word}" is not a console command`),
      );
      expect(refused, 'README names console commands the demo console does not handle').toEqual([]);
    } finally {
      await emulation.close();
    }
  });
});

describe('README and .env.example: configuration', () => {
  const code = variablesTheCodeReads();
  const table = configurationTable();
  const example = new Set(
    [...ENV_EXAMPLE.matchAll(/^#?\s*([A-Z][A-Z0-9_]*)=/gm)].map(([, name = '']) => name),
  );

  it('finds the variables in the code, the table and the example', () => {
    expect(code.variables.size).toBeGreaterThan(30);
    expect(code.secrets.size).toBeGreaterThan(5);
    expect(table.size).toBeGreaterThan(30);
    expect(example.size).toBeGreaterThan(30);
  });

  it("the README's table lists exactly the variables the code reads", () => {
    expectSameVariables(code.variables, table.keys(), 'the README table');
  });

  it('.env.example sets or shows exactly the variables the code reads', () => {
    expectSameVariables(code.variables, example, '.env.example');
  });

  it('the table marks as secret exactly those that may come from <NAME>_FILE', () => {
    const marked = [...table].filter(([, secret]) => secret).map(([name]) => name);
    expect(difference(code.secrets, marked), 'secrets the table does not mark').toEqual([]);
    expect(difference(marked, code.secrets), 'marked secret, not read from a file').toEqual([]);
  });

  it("every variable the README's text names is read by the code (or by the tests)", () => {
    const named = spans.flatMap((span) => {
      const name = /^(?:<NAME>|[A-Z][A-Z0-9]*)(?:_[A-Z0-9]+)*(?==|$)/.exec(span)?.[0];
      return name && (name.includes('_') || span.includes('=')) ? [name] : [];
    });
    expect(named.length).toBeGreaterThan(10);
    const unread = named.filter(
      (name) =>
        !code.variables.has(name) &&
        !TEST_VARIABLES.includes(name) &&
        // `<NAME>_FILE` and `PAYMENTS_API_KEY_FILE`: a secret read from a file.
        !(
          name.endsWith('_FILE') &&
          (name === '<NAME>_FILE' || code.secrets.has(name.slice(0, -5)))
        ),
    );
    expect(unread, 'README names variables nothing reads').toEqual([]);
  });

  it('the variables only rehearsals set are described in docs/, and in neither the table nor the example', () => {
    const rehearsal = configurationVariables()
      .filter((variable) => variable.rehearsal)
      .map(({ name }) => name);
    const docs = readdirSync(join(ROOT, 'docs'))
      .filter((name) => name.endsWith('.md'))
      .map((name) => readFileSync(join(ROOT, 'docs', name), 'utf8'))
      .join('\n');
    expect(rehearsal.filter((name) => !docs.includes(`\`${name}\``))).toEqual([]);
    expect(rehearsal.filter((name) => table.has(name) || example.has(name))).toEqual([]);
  });

  it('the variables the README names for the tests are read by the tests', () => {
    const testSources = sourceFiles(join(ROOT, 'test')).map((file) => readFileSync(file, 'utf8'));
    for (const name of TEST_VARIABLES) {
      expect(testSources.some((text) => text.includes(`process.env.${name}`))).toBe(true);
    }
  });
});

/** Read by the tests, not by payops: the README's Development section names them. */
const TEST_VARIABLES = ['TEST_DATABASE_URL', 'CI'];

/**
 * Outside payops proper: the rehearsal tools (`src/rehearsal/`): the Payments and Slack
 * emulations, the demo (which also honours the NO_COLOR convention) and the sandbox command
 * (its SANDBOX_* variables are in `payops sandbox --help`).
 */
const NOT_CONFIGURATION = [/^src\/rehearsal\//];

/**
 * The variables of the configuration's sections (src/config/) an operator sets, those that are
 * secrets, and every other `process.env.NAME` in src/ (a computed `process.env[…]` there fails
 * the test: it could hide one).
 */
function variablesTheCodeReads(): { variables: Set<string>; secrets: Set<string> } {
  const read = configurationVariables().filter((variable) => !variable.rehearsal);
  const variables = new Set(read.map(({ name }) => name));
  const secrets = new Set(read.filter(({ secret }) => secret).map(({ name }) => name));
  for (const file of sourceFiles(join(ROOT, 'src'))) {
    const path = relative(ROOT, file);
    if (NOT_CONFIGURATION.some((pattern) => pattern.test(path))) continue;
    const source = ts.createSourceFile(
      path,
      readFileSync(file, 'utf8'),
      ts.ScriptTarget.Latest,
      true,
    );
    const visit = (node: ts.Node): void => {
      if (ts.isPropertyAccessExpression(node) && node.expression.getText() === 'process.env') {
        variables.add(node.name.getText());
      }
      if (ts.isElementAccessExpression(node) && node.expression.getText() === 'process.env') {
        throw new Error(
          `${path}: process.env[${node.argumentExpression.getText()}] hides which variable it reads`,
        );
      }
      ts.forEachChild(node, visit);
    };
    visit(source);
  }
  return { variables, secrets };
}

/** The README's configuration table: each variable, and whether its default column says secret. */
function configurationTable(): Map<string, boolean> {
  const rows = tableRows(section('Configuration')).filter((row) => row[0]?.startsWith('`'));
  const table = new Map<string, boolean>();
  for (const [names = '', defaults = ''] of rows) {
    for (const [, name = ''] of names.matchAll(/`([^`]+)`/g)) {
      table.set(name, /\bsecret\b/.test(defaults));
    }
  }
  return table;
}

/** The text of the `## ` section whose title starts with `title`. */
function section(title: string): string {
  const start = README.search(new RegExp(`^## ${title}`, 'm'));
  expect(start, `README has a section "## ${title}"`).toBeGreaterThanOrEqual(0);
  const end = README.slice(start + 3).search(/^## /m);
  return end === -1 ? README.slice(start) : README.slice(start, start + 3 + end);
}

/** A Markdown table's rows as cells, a cell's `\|` kept whole (separator rows left out). */
function tableRows(text: string): string[][] {
  return text
    .split('\n')
    .filter((line) => line.startsWith('|') && !/^\|[\s|:-]+\|$/.test(line))
    .map((line) =>
      line
        .slice(1, -1)
        .split(/(?<!\\)\|/)
        .map((cell) => cell.trim()),
    );
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith('.ts'))
    .map((entry) => join(entry.parentPath, entry.name));
}

/** Both ways: each name read and not listed, or listed and not read, is named. */
function expectSameVariables(read: Iterable<string>, listed: Iterable<string>, where: string) {
  const names = [...listed];
  expect(difference(read, names), `read by the code, missing from ${where}`).toEqual([]);
  expect(difference(names, read), `in ${where}, read by no code`).toEqual([]);
}

function difference(from: Iterable<string>, without: Iterable<string>): string[] {
  const excluded = new Set(without);
  return [...new Set(from)].filter((item) => !excluded.has(item)).sort();
}
