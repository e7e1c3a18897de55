import { z } from 'zod';
import { isSecureOrLoopback, secret, textOr, variable, wholeNumber } from './fields.ts';
import { section } from './read.ts';

/** Slack: the app's credentials, its command, and the HTTP server its requests reach. */

const apiUrl = variable(
  'SLACK_API_URL',
  z
    .string()
    .optional()
    .transform((value, ctx) => {
      if (value === undefined || value.trim() === '') return undefined;
      const url = URL.canParse(value.trim()) ? new URL(value.trim()) : undefined;
      if (!url || !isSecureOrLoopback(url)) {
        ctx.addIssue({
          code: 'custom',
          message: 'SLACK_API_URL must be an https:// URL (http:// only for a loopback emulation)',
        });
        return z.NEVER;
      }
      return url.href.endsWith('/') ? url.href : `${url.href}/`;
    }),
);

export const slack = section({
  slack: z.object({
    botToken: variable(
      'SLACK_BOT_TOKEN',
      secret('SLACK_BOT_TOKEN').refine((value) => value.startsWith('xoxb-'), {
        error: 'SLACK_BOT_TOKEN must be a bot token (it starts with xoxb-)',
      }),
      { secret: true },
    ),
    signingSecret: secret('SLACK_SIGNING_SECRET'),
    appToken: variable(
      'SLACK_APP_TOKEN',
      z
        .string()
        .optional()
        .transform((value) => (value?.trim() ? value.trim() : undefined))
        .refine((value) => value === undefined || value.startsWith('xapp-'), {
          error: 'SLACK_APP_TOKEN must be an app-level token (it starts with xapp-)',
        }),
      { secret: true },
    ),
    apiUrl,
    command: variable(
      'PAYOPS_COMMAND',
      z
        .string()
        .optional()
        .transform((value) => value?.trim() || '/pay')
        .refine((value) => /^\/[a-z0-9_-]{1,31}$/.test(value), {
          error:
            'PAYOPS_COMMAND must be a slash command like /pay (lower case, at most 32 characters)',
        }),
    ),
    port: wholeNumber('PORT', 3000, 0, 65_535),
    /** Interface the HTTP server binds: all by default; `127.0.0.1` for local rehearsals. */
    host: textOr('HOST', '0.0.0.0'),
    /**
     * Slack's rate limits as the outbox paces itself, multiplied: 1 for Slack itself; more only
     * against an emulation scaled alike, in a process of its own (the benchmark's replicas).
     */
    rateLimitScale: wholeNumber('PAYOPS_SLACK_RATE_SCALE', 1, 1, 1_000, { rehearsal: true }),
  }),
});
