/**
 * `JSON.parse`, except that every number written with a fraction or an exponent, and every
 * integer beyond 2^53, comes back as a string of exactly the provider's digits. An amount
 * sent as `1250.50` therefore stays `1250.50` instead of becoming the float `1250.5`.
 * (Node 20 has no source-text access in `JSON.parse` revivers, hence this pre-pass; not the
 * lossless-json package, a second whole JSON parser in the path of every reply, where quoting
 * a few lexemes lets `JSON.parse` do the parsing.)
 */
export function parseJsonPreservingDecimals(text: string): unknown {
  return JSON.parse(quoteInexactNumbers(text));
}

const NUMBER_START = /[-0-9]/;
const NUMBER_CHAR = /[-+0-9.eE]/;

function quoteInexactNumbers(text: string): string {
  let out = '';
  let copiedUpTo = 0;
  let index = 0;
  while (index < text.length) {
    const char = text[index] as string;
    if (char === '"') {
      index = endOfString(text, index);
      continue;
    }
    if (NUMBER_START.test(char)) {
      let end = index + 1;
      while (end < text.length && NUMBER_CHAR.test(text[end] as string)) end++;
      const lexeme = text.slice(index, end);
      if (needsQuoting(lexeme)) {
        out += `${text.slice(copiedUpTo, index)}"${lexeme}"`;
        copiedUpTo = end;
      }
      index = end;
      continue;
    }
    index++;
  }
  return out + text.slice(copiedUpTo);
}

function needsQuoting(lexeme: string): boolean {
  if (!/^-?(0|[1-9]\d*)(\.\d+)?([eE][-+]?\d+)?$/.test(lexeme)) return false; // let JSON.parse reject it
  if (/[.eE]/.test(lexeme)) return true;
  return !Number.isSafeInteger(Number(lexeme));
}

/** Index just past the closing quote of the string starting at `start`. */
function endOfString(text: string, start: number): number {
  let index = start + 1;
  while (index < text.length) {
    const char = text[index];
    if (char === '\\') index += 2;
    else if (char === '"') return index + 1;
    else index++;
  }
  return index;
}
