import { createHash } from 'node:crypto';
import type { WebClient } from '@slack/web-api';
import { describe, expect, it } from 'vitest';
import type { DocumentAsked } from '../../src/app/document-port.ts';
import { slackDocumentReader, tokenMayGoTo } from '../../src/slack/documents.ts';

const TOKEN = 'xoxb-test-token';
const API = 'https://slack.com/api/';
const URL_DOWNLOAD = 'https://files.slack.com/files-pri/T1-F0INVOICE1/download/invoice.pdf';
const BYTES = Buffer.from('%PDF-1.7 invoice 2291');
const ASKED: DocumentAsked = {
  fileId: 'F0INVOICE1',
  requesterId: 'U0ALICE',
  channelId: 'C0PAYOPS',
};

function fileInfo(overrides: Record<string, unknown> = {}) {
  return {
    id: 'F0INVOICE1',
    name: 'invoice.pdf',
    size: BYTES.length,
    user: 'U0ALICE',
    url_private_download: URL_DOWNLOAD,
    permalink: 'https://acme.slack.com/files/U0ALICE/F0INVOICE1/invoice.pdf',
    channels: [],
    groups: [],
    ims: [],
    ...overrides,
  };
}

/** A client whose files.info answers `file` (or throws `error`), and a fetch that records. */
function reader(
  file: Record<string, unknown> | Error,
  download: (init: RequestInit | undefined) => Response | Promise<Response> = () =>
    new Response(new Uint8Array(BYTES)),
  options: { maxBytes?: number; timeoutMs?: number } = {},
) {
  const fetched: Array<{ url: string; init: RequestInit | undefined }> = [];
  const client = {
    files: {
      info: async () => {
        if (file instanceof Error) throw file;
        return { ok: true, file };
      },
    },
  } as unknown as WebClient;
  const documents = slackDocumentReader({
    client,
    botToken: TOKEN,
    apiUrl: API,
    ...options,
    fetch: (async (url: string, init?: RequestInit) => {
      fetched.push({ url, init });
      return download(init);
    }) as typeof fetch,
  });
  return { documents, fetched };
}

describe('reading a supporting document from Slack', () => {
  it('reads it once with the bot token in the Authorization header, never in the URL, and keeps its SHA-256', async () => {
    const { documents, fetched } = reader(fileInfo());
    expect(await documents.read(ASKED)).toEqual({
      kind: 'read',
      document: {
        fileId: 'F0INVOICE1',
        name: 'invoice.pdf',
        size: BYTES.length,
        sha256: createHash('sha256').update(BYTES).digest('hex'),
        permalink: 'https://acme.slack.com/files/U0ALICE/F0INVOICE1/invoice.pdf',
      },
    });
    expect(fetched).toHaveLength(1);
    expect(fetched[0]?.url).toBe(URL_DOWNLOAD);
    expect(fetched[0]?.url).not.toContain(TOKEN);
    expect(fetched[0]?.init?.headers).toEqual({ Authorization: `Bearer ${TOKEN}` });
    expect(fetched[0]?.init?.redirect).toBe('manual');
  });

  it('takes a file shared in the channel where the request was made, whoever uploaded it', async () => {
    const { documents } = reader(fileInfo({ user: 'U0BOB', channels: ['C0PAYOPS'] }));
    expect((await documents.read(ASKED)).kind).toBe('read');
  });

  it('refuses another person’s file not shared where the request was made, without downloading it', async () => {
    const { documents, fetched } = reader(fileInfo({ user: 'U0BOB', channels: ['C0GENERAL'] }));
    expect(await documents.read(ASKED)).toEqual({
      kind: 'unreadable',
      problem: { code: 'not_shared' },
    });
    expect(fetched).toHaveLength(0);
  });

  it('refuses a file Slack does not show, one too large (declared or read), and a download that is not the declared bytes', async () => {
    const notFound = Object.assign(new Error('An API error occurred: file_not_found'), {
      data: { ok: false, error: 'file_not_found' },
    });
    expect((await reader(notFound).documents.read(ASKED)).kind).toBe('unreadable');
    expect(await reader(notFound).documents.read(ASKED)).toMatchObject({
      problem: { code: 'not_found' },
    });
    const declared = reader(fileInfo({ size: 30 }), undefined, { maxBytes: 20 });
    expect(await declared.documents.read(ASKED)).toMatchObject({
      problem: { code: 'too_large', size: 30, max: 20 },
    });
    expect(declared.fetched).toHaveLength(0);
    // Slack declared a small file; the download keeps coming.
    const endless = reader(fileInfo({ size: 10 }), () => new Response(new Uint8Array(64)), {
      maxBytes: 20,
    });
    expect(await endless.documents.read(ASKED)).toMatchObject({ problem: { code: 'too_large' } });
    const signIn = reader(fileInfo(), () => new Response('<html>sign in</html>'));
    expect(await signIn.documents.read(ASKED)).toMatchObject({ problem: { code: 'unreadable' } });
    const redirected = reader(fileInfo(), () => new Response(null, { status: 302 }));
    expect(await redirected.documents.read(ASKED)).toMatchObject({
      problem: { code: 'unreadable' },
    });
  });

  it('gives up past its deadline', async () => {
    const slow = reader(
      fileInfo(),
      (init) =>
        new Promise<Response>((_resolve, reject) =>
          init?.signal?.addEventListener('abort', () => reject(init.signal?.reason)),
        ),
      { timeoutMs: 50 },
    );
    expect(await slow.documents.read(ASKED)).toEqual({
      kind: 'unreadable',
      problem: { code: 'timed_out', ms: 50 },
    });
  });

  it('never sends the token to a URL that is not Slack’s file host', async () => {
    const { documents, fetched } = reader(
      fileInfo({ url_private_download: 'https://evil.example/invoice.pdf' }),
    );
    expect(await documents.read(ASKED)).toMatchObject({ problem: { code: 'unreadable' } });
    expect(fetched).toHaveLength(0);
    expect(tokenMayGoTo(URL_DOWNLOAD, undefined)).toBe(true);
    expect(tokenMayGoTo('https://files.slack-gov.com/x', 'https://slack-gov.com/api/')).toBe(true);
    expect(tokenMayGoTo('http://files.slack.com/x', API)).toBe(false);
    expect(tokenMayGoTo('https://files.slack.com.evil.example/x', API)).toBe(false);
    expect(tokenMayGoTo('http://127.0.0.1:9/download/F1/a', 'http://127.0.0.1:9/api/')).toBe(true);
    expect(tokenMayGoTo('not a url', API)).toBe(false);
  });
});
