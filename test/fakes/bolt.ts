import type { RespondArguments, RespondFn } from '@slack/bolt';
import type { WebClient } from '@slack/web-api';

/** A Web API method the fake client keeps: what it was called with, in order. */
type Kept = Array<{ method: string; args: Record<string, unknown> }>;

/**
 * What Bolt hands a listener, in memory (as the Bolt starter template tests its listeners): an
 * `ack`, a `respond` and a `client` whose `views.open`, `views.update`, `chat.postEphemeral`,
 * `chat.postMessage` and `files.uploadV2` are kept. `said` lists what the listener did, in order
 * (`ack`, `respond`, `views.open`…); `acks` what each ack carried (a form's errors).
 */
export function fakeBolt() {
  const said: string[] = [];
  const acks: unknown[] = [];
  const responses: RespondArguments[] = [];
  const views: Array<{ method: 'open' | 'update'; args: Record<string, unknown> }> = [];
  const posts: Kept = [];
  const files: Kept = [];
  const ack = async (response?: unknown) => {
    said.push('ack');
    acks.push(response);
  };
  const respond: RespondFn = async (message) => {
    said.push('respond');
    responses.push(typeof message === 'string' ? { text: message } : message);
    return {} as Awaited<ReturnType<RespondFn>>;
  };
  const kept =
    (into: Kept, method: string, answer: Record<string, unknown>) =>
    async (args: Record<string, unknown>) => {
      said.push(method);
      into.push({ method, args });
      return { ok: true, ...answer };
    };
  const client = {
    views: {
      open: async (args: Record<string, unknown>) => {
        said.push('views.open');
        views.push({ method: 'open', args });
        return { ok: true, view: { id: 'V0MODAL' } };
      },
      update: async (args: Record<string, unknown>) => {
        said.push('views.update');
        views.push({ method: 'update', args });
        return { ok: true };
      },
    },
    chat: {
      postEphemeral: kept(posts, 'chat.postEphemeral', { message_ts: '2.000100' }),
      postMessage: kept(posts, 'chat.postMessage', { ts: '2.000200' }),
    },
    files: { uploadV2: kept(files, 'files.uploadV2', {}) },
  } as unknown as WebClient;
  return { ack, respond, client, said, acks, responses, views, posts, files };
}

export type FakeBolt = ReturnType<typeof fakeBolt>;
