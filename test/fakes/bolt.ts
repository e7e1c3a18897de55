import type { RespondArguments, RespondFn } from '@slack/bolt';
import type { WebClient } from '@slack/web-api';

/**
 * What Bolt hands a listener, in memory (as the Bolt starter template tests its listeners): an
 * `ack`, a `respond` and a `client` whose `views.open` and `views.update` are kept. `said` lists
 * what the listener did, in order (`ack`, `respond`, `views.open`…).
 */
export function fakeBolt() {
  const said: string[] = [];
  const responses: RespondArguments[] = [];
  const views: Array<{ method: 'open' | 'update'; args: Record<string, unknown> }> = [];
  const ack = async () => {
    said.push('ack');
  };
  const respond: RespondFn = async (message) => {
    said.push('respond');
    responses.push(typeof message === 'string' ? { text: message } : message);
    return {} as Awaited<ReturnType<RespondFn>>;
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
  } as unknown as WebClient;
  return { ack, respond, client, said, responses, views };
}
