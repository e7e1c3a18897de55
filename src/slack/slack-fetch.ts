import { Agent, errors, request } from 'undici';

/**
 * The `fetch` payops gives Slack's SDKs (Bolt's `respond`, every WebClient) for their JSON and
 * form posts: undici's request API over one keep-alive agent, the answer read whole and handed
 * back as a standard Response. Measured on this machine, Node's global fetch spends about 2.5×
 * the CPU per small Slack call; on an engine thread answering every command through a
 * response_url, that was a fifth of its time. Other bodies (multipart file uploads) and Request
 * objects still go through the global fetch.
 */

/** A Slack call that has not answered in this long will not: fail it rather than hold it. */
const SLACK_TIMEOUT_MS = 30_000;
const NULL_BODY_STATUSES = new Set([101, 204, 205, 304]);

export interface SlackFetch {
  fetch: typeof fetch;
  close(): Promise<void>;
}

/** The WebClient's own default. */
export const DEFAULT_WEB_API_URL = 'https://slack.com/api/';

/**
 * `webApiUrl`: where the Web API is (`https://slack.com/api/`). Its calls are left to the
 * WebClient's own retries; only other posts — answers on a response_url, which Bolt's
 * `respond` never retries — get the second try below.
 */
export function createSlackFetch(options: { webApiUrl: string }): SlackFetch {
  const timeouts = { headersTimeout: SLACK_TIMEOUT_MS, bodyTimeout: SLACK_TIMEOUT_MS };
  const agent = new Agent({ keepAliveTimeout: 30_000, ...timeouts });
  // Second tries only, each on a connection of its own (reset: closed after its answer).
  const freshAgent = new Agent(timeouts);
  const slackFetch = async (input: string | URL | Request, init?: RequestInit) => {
    const body = init?.body ?? undefined;
    if (input instanceof Request || (body !== undefined && typeof body !== 'string')) {
      return fetch(input, init);
    }
    const send = (fresh: boolean) =>
      request(input, {
        method: (init?.method ?? 'GET') as 'GET',
        headers: Object.fromEntries(new Headers(init?.headers)),
        ...(body === undefined ? {} : { body }),
        ...(init?.signal ? { signal: init.signal } : {}),
        dispatcher: fresh ? freshAgent : agent,
        reset: fresh,
      });
    // A kept-alive connection Slack closed just as a post went out on it fails before any
    // answer, the post unread: a click's answer on its response_url was lost so under load.
    // Sent once more on a new connection. (Should the server have read it and then died
    // without answering, the person sees the answer twice: better than never.)
    const secondTry = !String(input).startsWith(options.webApiUrl);
    const response = await send(false).catch((error: unknown) => {
      if (!secondTry || !closedBeforeAnswer(error) || init?.signal?.aborted) throw error;
      return send(true);
    });
    const bytes = await response.body.arrayBuffer();
    const { statusCode } = response;
    if (init?.redirect === 'error' && statusCode >= 300 && statusCode < 400) {
      throw new TypeError(
        `fetch failed: redirected (HTTP ${statusCode}) where redirects are errors`,
      );
    }
    const headers = new Headers();
    for (const [name, value] of Object.entries(response.headers)) {
      for (const one of Array.isArray(value) ? value : value === undefined ? [] : [value]) {
        headers.append(name, one);
      }
    }
    return new Response(NULL_BODY_STATUSES.has(statusCode) ? null : bytes, {
      status: statusCode,
      statusText: response.statusText ?? '',
      headers,
    });
  };
  return {
    fetch: slackFetch as typeof fetch,
    close: async () => {
      await Promise.all([agent.close(), freshAgent.close()]);
    },
  };
}

/**
 * The connection was closed or reset by the other side before any of the answer came (`request`
 * rejects only before the answer's headers; a failure after them is the body's).
 */
function closedBeforeAnswer(error: unknown): boolean {
  const code = (error as { code?: unknown } | undefined)?.code;
  return error instanceof errors.SocketError || code === 'ECONNRESET' || code === 'EPIPE';
}
