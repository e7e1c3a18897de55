import { z } from 'zod';
import { textOr, variable } from './fields.ts';
import { section } from './read.ts';

/** Where the store is: PostgreSQL when DATABASE_URL is set; otherwise embedded PGlite. */

function parsedUrl(text: string): URL | undefined {
  return URL.canParse(text) ? new URL(text) : undefined;
}

/**
 * The passwords of a PostgreSQL URL as `pg` reads it (in its user info or `?password=`), or what
 * is wrong with it. A problem never quotes the URL: it holds the password.
 */
export function parseDatabaseUrl(text: string): { passwords: string[] } | { problem: string } {
  if (!/^postgres(ql)?:\/\//.test(text)) {
    return {
      problem: 'DATABASE_URL must be a postgres:// URL (leave it unset for the embedded store)',
    };
  }
  // pg also accepts an empty host (a Unix socket named by ?host=), which URL refuses.
  const url = parsedUrl(text) ?? parsedUrl(text.replace('@/', '@localhost/'));
  if (!url) {
    return {
      problem:
        'DATABASE_URL is not a valid URL: percent-encode special characters in the user name and password, such as # / ? @ : as %23 %2F %3F %40 %3A',
    };
  }
  try {
    decodeURIComponent(url.username);
    const password = decodeURIComponent(url.password);
    const passwords = [url.password, password, url.searchParams.get('password') ?? ''];
    return { passwords: [...new Set(passwords.filter(Boolean))] };
  } catch {
    return {
      problem:
        'DATABASE_URL has a % that starts no valid percent-encoding in its user name or password: write a literal % as %25',
    };
  }
}

export const store = section({
  store: z.object({
    databaseUrl: variable(
      'DATABASE_URL',
      z
        .string()
        .optional()
        .transform((value, ctx) => {
          const text = value?.trim();
          if (!text) return undefined;
          const parsed = parseDatabaseUrl(text);
          if ('problem' in parsed) {
            ctx.addIssue({ code: 'custom', message: parsed.problem });
            return z.NEVER;
          }
          return text;
        }),
      { secret: true },
    ),
    /** The embedded store's folder (one process only). */
    dataDir: textOr('PAYOPS_DATA_DIR', './data'),
    /** Never create an embedded store: refuse to start without one. */
    mustExist: variable(
      'PAYOPS_STORE_MUST_EXIST',
      z
        .enum(['true', 'false'], { error: 'PAYOPS_STORE_MUST_EXIST must be true or false' })
        .optional()
        .transform((value) => value === 'true'),
    ),
  }),
});
