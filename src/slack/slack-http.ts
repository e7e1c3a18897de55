import { Agent, errors, request } from 'undici';

/**
 * How the engine reaches Slack over HTTP: the `fetch` given to the WebClient (Web API calls), the
 * forms its direct calls post (`postForm`, see PayopsWebClient), and answers posted to a request's
 * response_url. All use undici's request API over one keep-alive agent. Measured on this machine,
 * Node's global fetch spends about 2.5× the CPU per small Slack call; and an answer posted
 * straight from JSON skips the WHATWG Request/Response objects a fetch builds (on an engine
 * thread answering every command, those were a tenth of its allocations).
 */

/** A Slack call that has not answered in this long will not: fail it rather than hold it. */
const SLACK_TIMEOUT_MS = 30_000;
const NULL_BODY_STATUSES = new Set([101, 204, 205, 304]);
/** Of Slack's answer to a refused response_url post, what an error quotes (`expired_url`…). */
const QUOTED_ANSWER_CHARS = 200;

/** A message posted to a response_url, as Slack takes it. */
export interface ResponseUrlMessage {
  text: string;
  blocks?: unknown[];
  response_type?: 'ephemeral' | 'in_channel';
  replace_original?: boolean;
}

/** Answers the request a response_url came with; rejects if Slack refuses or cannot be reached. */
export type Respond = (message: ResponseUrlMessage) => Promise<void>;

/** Slack's answer to a Web API form, read whole. */
export interface FormAnswer {
  status: number;
  statusText: string;
  headers: Record<string, string>;
  body: string;
}

export interface SlackHttp {
  /** For the WebClient: its retries are its own, so a failed call is returned as it failed. */
  fetch: typeof fetch;
  /** A Web API form posted once with the bot's token (PayopsWebClient's direct calls). */
  postForm(url: string, token: string, form: string): Promise<FormAnswer>;
  respondTo(responseUrl: string): Respond;
  close(): Promise<void>;
}

/** Slack answered a response_url post with an error status: the answer did not reach anyone. */
export class ResponseUrlRefused extends Error {
  constructor(
    readonly status: number,
    readonly answer: string,
  ) {
    super(`Slack refused the answer on the response_url: HTTP ${status} ${answer}`.trim());
    this.name = 'ResponseUrlRefused';
  }
}

export function createSlackHttp(): SlackHttp {
  const timeouts = { headersTimeout: SLACK_TIMEOUT_MS, bodyTimeout: SLACK_TIMEOUT_MS };
  const agent = new Agent({ keepAliveTimeout: 30_000, ...timeouts });
  // Second tries of answers only, each on a connection of its own (reset: closed after it).
  const freshAgent = new Agent(timeouts);

  const slackFetch = async (input: string | URL | Request, init?: RequestInit) => {
    const body = init?.body ?? undefined;
    // Multipart uploads (file bodies) and Request objects: the standard fetch.
    if (input instanceof Request || (body !== undefined && typeof body !== 'string')) {
      return fetch(input, init);
    }
    const response = await request(input, {
      method: (init?.method ?? 'GET') as 'GET',
      headers: Object.fromEntries(new Headers(init?.headers)),
      ...(body === undefined ? {} : { body }),
      ...(init?.signal ? { signal: init.signal } : {}),
      dispatcher: agent,
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

  const postForm = async (url: string, token: string, form: string): Promise<FormAnswer> => {
    const response = await request(url, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${token}`,
        'content-type': 'application/x-www-form-urlencoded',
      },
      body: form,
      dispatcher: agent,
    });
    const headers: Record<string, string> = {};
    for (const [name, value] of Object.entries(response.headers)) {
      if (value !== undefined) headers[name] = Array.isArray(value) ? value.join(', ') : value;
    }
    return {
      status: response.statusCode,
      statusText: response.statusText ?? '',
      headers,
      body: await response.body.text(),
    };
  };

  const respondTo =
    (responseUrl: string): Respond =>
    async (message) => {
      const body = JSON.stringify(message);
      const post = (fresh: boolean) =>
        request(responseUrl, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body,
          dispatcher: fresh ? freshAgent : agent,
          reset: fresh,
        });
      // A kept-alive connection Slack closed just as an answer went out on it fails before any
      // reply, the answer unread: a click's answer was lost so under load. Sent once more on a
      // new connection. (Should the server have read it and then died without replying, the
      // person sees the answer twice: better than never.) Web API calls are not tried again
      // here: the WebClient retries its own.
      const response = await post(false).catch((error: unknown) => {
        if (!closedBeforeAnswer(error)) throw error;
        return post(true);
      });
      // Read whole, so the connection can carry the next answer.
      const answer = await response.body.text();
      if (response.statusCode < 200 || response.statusCode >= 300) {
        throw new ResponseUrlRefused(response.statusCode, answer.slice(0, QUOTED_ANSWER_CHARS));
      }
    };

  return {
    fetch: slackFetch as typeof fetch,
    postForm,
    respondTo,
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
