import { createHash } from 'node:crypto';
import type { WebClient } from '@slack/web-api';
import type { DocumentAsked, DocumentRead, DocumentReader } from '../app/document-port.ts';
import {
  DOCUMENT_READ_MS,
  type DocumentProblem,
  documentName,
  MAX_DOCUMENT_BYTES,
} from '../domain/document.ts';
import { isRecord } from '../payments/response-shape.ts';

/**
 * A supporting document read from Slack (`files:read`): `files.info` for its name, size, owner
 * and where it is shared, then one download of `url_private_download` with the bot token in
 * the Authorization header, hashed as it streams. Refused: a file neither uploaded by the
 * requester nor shared in the channel where they asked (a file id is no permission to attach
 * someone else's file from another channel), one larger than MAX_DOCUMENT_BYTES, a download
 * that is not the bytes Slack declared (a sign-in page, a redirect, a short read), and anything
 * past DOCUMENT_READ_MS.
 */

export interface SlackDocumentsDeps {
  client: WebClient;
  botToken: string;
  /** The Web API's base URL; the token goes only to its host or to `files.` on its domain. */
  apiUrl?: string | undefined;
  maxBytes?: number;
  timeoutMs?: number;
  /** The download's HTTP client; the global fetch unless a test gives another. */
  fetch?: typeof fetch;
}

const SLACK_API_URL = 'https://slack.com/api/';

export function slackDocumentReader(deps: SlackDocumentsDeps): DocumentReader {
  const maxBytes = deps.maxBytes ?? MAX_DOCUMENT_BYTES;
  const timeoutMs = deps.timeoutMs ?? DOCUMENT_READ_MS;
  return {
    async read(asked: DocumentAsked): Promise<DocumentRead> {
      const deadline = AbortSignal.timeout(timeoutMs);
      try {
        return await readDocument({ ...deps, maxBytes }, asked, deadline);
      } catch (error) {
        if (deadline.aborted) return unreadable({ code: 'timed_out', ms: timeoutMs });
        if (slackError(error) === 'file_not_found' || slackError(error) === 'file_deleted') {
          return unreadable({ code: 'not_found' });
        }
        return unreadable({ code: 'unreadable' });
      }
    },
  };
}

async function readDocument(
  deps: SlackDocumentsDeps & { maxBytes: number },
  { fileId, requesterId, channelId }: DocumentAsked,
  deadline: AbortSignal,
): Promise<DocumentRead> {
  const info = await untilAborted(deps.client.files.info({ file: fileId }), deadline);
  const file = isRecord(info.file) ? info.file : undefined;
  if (file === undefined || file.id !== fileId) return unreadable({ code: 'not_found' });
  if (!sharedWith(file, requesterId, channelId)) return unreadable({ code: 'not_shared' });
  const size = typeof file.size === 'number' ? file.size : undefined;
  if (size !== undefined && size > deps.maxBytes) {
    return unreadable({ code: 'too_large', size, max: deps.maxBytes });
  }
  const url = typeof file.url_private_download === 'string' ? file.url_private_download : '';
  if (size === undefined || !tokenMayGoTo(url, deps.apiUrl)) {
    return unreadable({ code: 'unreadable' });
  }
  // A redirect is Slack sending an unaccepted token to sign in: never followed with the token.
  const response = await (deps.fetch ?? fetch)(url, {
    headers: { Authorization: `Bearer ${deps.botToken}` },
    redirect: 'manual',
    signal: deadline,
  });
  if (response.status !== 200 || response.body === null) {
    await response.body?.cancel();
    return unreadable({ code: 'unreadable' });
  }
  const hash = createHash('sha256');
  let read = 0;
  for await (const chunk of response.body) {
    read += chunk.byteLength;
    if (read > deps.maxBytes) {
      await response.body.cancel().catch(() => undefined);
      return unreadable({ code: 'too_large', size: read, max: deps.maxBytes });
    }
    hash.update(chunk);
  }
  if (read !== size) return unreadable({ code: 'unreadable' });
  const name = typeof file.name === 'string' ? file.name : String(file.title ?? '');
  return {
    kind: 'read',
    document: {
      fileId,
      name: documentName(name),
      size,
      sha256: hash.digest('hex'),
      ...(typeof file.permalink === 'string' && { permalink: file.permalink }),
    },
  };
}

/** Uploaded by the requester (a form's file input uploads it so), or shared where they asked. */
function sharedWith(
  file: Record<string, unknown>,
  requesterId: string,
  channelId: string | undefined,
): boolean {
  if (file.user === requesterId) return true;
  if (channelId === undefined) return false;
  return [file.channels, file.groups, file.ims].some(
    (list) => Array.isArray(list) && list.includes(channelId),
  );
}

/**
 * Whether the bot token may be sent to `url`: over HTTPS to Slack's file host (`files.` and the
 * Web API's domain, e.g. files.slack.com), or to the Web API's own origin (an emulation serves
 * both from one place).
 */
export function tokenMayGoTo(url: string, apiUrl: string | undefined): boolean {
  let target: URL;
  let api: URL;
  try {
    target = new URL(url);
    api = new URL(apiUrl ?? SLACK_API_URL);
  } catch {
    return false;
  }
  if (target.origin === api.origin) return true;
  return target.protocol === 'https:' && target.host === `files.${api.host}`;
}

function unreadable(problem: DocumentProblem): DocumentRead {
  return { kind: 'unreadable', problem };
}

function slackError(error: unknown): unknown {
  return isRecord(error) && isRecord(error.data) ? error.data.error : undefined;
}

/** `work`, or the deadline's abort: a Web API call takes no signal of its own. */
function untilAborted<T>(work: Promise<T>, signal: AbortSignal): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const abort = () => reject(signal.reason);
    if (signal.aborted) return abort();
    signal.addEventListener('abort', abort, { once: true });
    work.then(resolve, reject).finally(() => signal.removeEventListener('abort', abort));
  });
}
