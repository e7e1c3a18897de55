import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

/**
 * What payops says to people is written on the Slack side (src/slack/text/, src/slack/blocks/),
 * with the command as configured: below it, layers return codes with data. This reads every
 * string literal of src/{domain,app,store,payments} and fails on one that reads like a sentence
 * and is not a log line, a thrown error's message, SQL, or an entry of ALLOWED below; and on
 * any string literal in src (but the rehearsal tools) naming `/pay` itself.
 */

const ROOT = join(import.meta.dirname, '../..');
const BELOW_SLACK = ['domain', 'app', 'store', 'payments'];

/** A file whose sentences (or mentions of `/pay`) are allowed, and why. */
interface Allowed {
  file: string;
  reason: string;
}

const OPERATOR = 'operator output (console, start-up refusal or CLI report), never sent to Slack';

const ALLOWED: readonly Allowed[] = [
  {
    file: 'src/domain/operations.ts',
    reason: "the operations catalogue's summaries and parameter descriptions: data, shown as given",
  },
  { file: 'src/app/first-checks.ts', reason: `the provider's first checks: ${OPERATOR}` },
  { file: 'src/store/audit-chain.ts', reason: `the audit chain's verification: ${OPERATOR}` },
  { file: 'src/store/folder-lock.ts', reason: `the store folder's lock: ${OPERATOR}` },
  { file: 'src/store/pglite.ts', reason: `the embedded store's start-up: ${OPERATOR}` },
  { file: 'src/store/make-pglite-template.ts', reason: `the store template's build: ${OPERATOR}` },
  {
    file: 'src/payments/client.ts',
    reason:
      "a failed call's summary, its error's message for the logs (the person is told its code's words)",
  },
  { file: 'src/domain/policy.ts', reason: `the policy file's problems: ${OPERATOR}` },
];

/** At least four words: a phrase a person reads, not a name, a key or a format. */
const SENTENCE = /[A-Za-z][a-z']*(?:[ ,;:—-]+[A-Za-z][a-z']*){3,}/;
const SQL =
  /^\s*(select|insert|update|delete|with|create|alter|drop|begin|set|lock|case when)\b|\b(from|where|returning|on conflict|is null)\b|\$\d|^\s*[a-z_]+(, [a-z_]+)+/i;
const LOG_METHODS = new Set(['trace', 'debug', 'info', 'warn', 'error', 'fatal']);
/** Where a string literal may name `/pay`. */
const OLD_NAME_ALLOWED: readonly Allowed[] = [
  {
    file: 'src/config/slack.ts',
    reason: "the command's default name, where the configuration sets it",
  },
];
const OLD_NAME = /\/pay(?![\w-])/;

interface Literal {
  file: string;
  line: number;
  text: string;
  /** A log line's message, a thrown error's, or a tagged template (SQL). */
  exempt: boolean;
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sourceFiles(path);
    return path.endsWith('.ts') ? [path] : [];
  });
}

const parsed = new Map<string, Literal[]>();

/** Every string literal and template of `path`, a template's placeholders as `X`; read once. */
function literalsOf(path: string): Literal[] {
  const known = parsed.get(path);
  if (known) return known;
  const found = readLiterals(path);
  parsed.set(path, found);
  return found;
}

function readLiterals(path: string): Literal[] {
  const file = relative(ROOT, path);
  const source = ts.createSourceFile(
    path,
    readFileSync(path, 'utf8'),
    ts.ScriptTarget.Latest,
    true,
  );
  const found: Literal[] = [];
  const visit = (node: ts.Node): void => {
    let text: string | undefined;
    if (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) text = node.text;
    if (ts.isTemplateExpression(node)) {
      text = [node.head.text, ...node.templateSpans.map((span) => `X${span.literal.text}`)].join(
        '',
      );
    }
    if (text !== undefined && !ts.isImportDeclaration(node.parent)) {
      const line = source.getLineAndCharacterOfPosition(node.getStart()).line + 1;
      found.push({ file, line, text, exempt: isExempt(node) });
    }
    if (ts.isTemplateExpression(node)) {
      for (const span of node.templateSpans) visit(span.expression);
    } else {
      ts.forEachChild(node, visit);
    }
  };
  visit(source);
  return found;
}

function isExempt(literal: ts.Node): boolean {
  let node = literal;
  while (
    ts.isBinaryExpression(node.parent) ||
    ts.isConditionalExpression(node.parent) ||
    ts.isParenthesizedExpression(node.parent)
  ) {
    node = node.parent;
  }
  const parent = node.parent;
  if (ts.isTaggedTemplateExpression(parent)) return true;
  if (ts.isNewExpression(parent)) return /Error$/.test(parent.expression.getText());
  // An error class's message, given to its base class.
  if (ts.isCallExpression(parent) && parent.expression.kind === ts.SyntaxKind.SuperKeyword) {
    return extendsAnError(parent);
  }
  return (
    ts.isCallExpression(parent) &&
    ts.isPropertyAccessExpression(parent.expression) &&
    LOG_METHODS.has(parent.expression.name.text) &&
    /log/i.test(parent.expression.expression.getText())
  );
}

function extendsAnError(node: ts.Node): boolean {
  let at: ts.Node | undefined = node;
  while (at && !ts.isClassLike(at)) at = at.parent;
  const base = at?.heritageClauses?.find((clause) => clause.token === ts.SyntaxKind.ExtendsKeyword);
  return base !== undefined && /Error$/.test(base.types[0]?.expression.getText() ?? '');
}

function isAllowed({ file }: Literal, allowed: readonly Allowed[]): boolean {
  return allowed.some((entry) => entry.file === file);
}

/** The sentences below src/slack that are neither exempt nor SQL. */
function sentencesBelowSlack(): Literal[] {
  return BELOW_SLACK.flatMap((dir) => sourceFiles(join(ROOT, 'src', dir)))
    .flatMap(literalsOf)
    .filter((literal) => !literal.exempt && SENTENCE.test(literal.text) && !SQL.test(literal.text));
}

/** The string literals of src (but the rehearsal tools) naming `/pay`. */
function oldNameLiterals(): Literal[] {
  return sourceFiles(join(ROOT, 'src'))
    .filter((path) => !relative(ROOT, path).startsWith('src/rehearsal/'))
    .flatMap(literalsOf)
    .filter((literal) => OLD_NAME.test(literal.text));
}

const shown = (literal: Literal) => `${literal.file}:${literal.line}: ${literal.text}`;

describe('what payops says to people', () => {
  it('is worded on the Slack side: no sentence below src/slack outside the allowed ones', () => {
    const sentences = sentencesBelowSlack();
    expect(sentences.length, 'the scan finds the allowed ones').toBeGreaterThan(0);
    expect(sentences.filter((literal) => !isAllowed(literal, ALLOWED)).map(shown)).toEqual([]);
  });

  it('never names /pay: answers name the command as configured', () => {
    const named = oldNameLiterals().filter((literal) => !isAllowed(literal, OLD_NAME_ALLOWED));
    expect(named.map(shown)).toEqual([]);
  });

  it('allows nothing left over: each allowed file still has what it is allowed', () => {
    const sentences = new Set(sentencesBelowSlack().map((literal) => literal.file));
    const named = new Set(oldNameLiterals().map((literal) => literal.file));
    expect([
      ...ALLOWED.filter((entry) => !sentences.has(entry.file)),
      ...OLD_NAME_ALLOWED.filter((entry) => !named.has(entry.file)),
    ]).toEqual([]);
  });
});
