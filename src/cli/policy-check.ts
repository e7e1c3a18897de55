import { readFileSync } from 'node:fs';
import { PolicyError, parsePolicy } from '../domain/policy.ts';
import { canonicalPolicy, canonicalVersion } from '../domain/policy-version.ts';
import { policyWords } from '../slack/text/policy.ts';

export const usage = `Usage: payops policy check FILE

Checks an approval policy file (YAML or JSON, what PAYOPS_POLICY_FILE names) without starting
payops, and prints what it means in plain words (how many approvals each write needs, by amount
and currency, and when a request expires) and its policy version: the SHA-256 of its canonical
form, which the audit log records when payops starts under it. Whitespace, comments and the order
of keys and rules do not change the version.
Exit codes: 0 valid, 2 invalid (every problem listed) or no FILE given, 3 FILE cannot be read.`;

export const flags: readonly string[] = ['check'];
/** The file's path. */
export const operands = 1;

export async function run(args: string[]): Promise<number> {
  const [file] = args.filter((arg) => !flags.includes(arg));
  if (!args.includes('check') || file === undefined) {
    console.error(usage);
    return 2;
  }
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? 'unknown error';
    console.error(`payops policy check: ${file} cannot be read (${code})`);
    return 3;
  }
  try {
    const canonical = canonicalPolicy(parsePolicy(text, file));
    console.log(`${file} is a valid policy. What it means:\n`);
    for (const line of policyWords(canonical)) console.log(line);
    console.log(`\nPolicy version (SHA-256 of its canonical form): ${canonicalVersion(canonical)}`);
    return 0;
  } catch (error) {
    if (!(error instanceof PolicyError)) throw error;
    console.log(error.message);
    return 2;
  }
}
