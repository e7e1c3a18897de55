import type {
  AckFn,
  BlockAction,
  ButtonAction,
  KnownEventFromType,
  SlashCommand,
  ViewOutput,
  ViewResponseAction,
  ViewSubmitAction,
} from '@slack/bolt';
import type { WebClient } from '@slack/web-api';
import type { Respond } from '../slack-http.ts';

/**
 * Where payops's listeners register, and how a request the ingress has verified finds its
 * listener. Bolt verifies and acknowledges at the ingress; the engine needs only this lookup —
 * by command, action_id, callback_id or event type — not a second run of Bolt's middleware
 * chains, which for every request ran every listener's chain and was a third of the engine's
 * allocations.
 */

export interface CommandArgs {
  ack: AckFn<void>;
  command: SlashCommand;
  respond: Respond;
  client: WebClient;
}

export interface ActionArgs {
  ack: AckFn<void>;
  body: BlockAction<ButtonAction>;
  action: ButtonAction;
  respond: Respond;
  client: WebClient;
}

export interface ViewArgs {
  ack: AckFn<ViewResponseAction>;
  body: ViewSubmitAction;
  view: ViewOutput;
  client: WebClient;
}

export interface EventArgs<T extends string> {
  event: KnownEventFromType<T>;
  client: WebClient;
}

type Listener<Args> = (args: Args) => Promise<void>;

export interface ListenerRegistry {
  command(name: string, listener: Listener<CommandArgs>): void;
  action(actionId: string, listener: Listener<ActionArgs>): void;
  view(callbackId: string, listener: Listener<ViewArgs>): void;
  event<T extends string>(type: T, listener: Listener<EventArgs<T>>): void;
}

export interface RouterDeps {
  client: WebClient;
  respondTo(responseUrl: string): Respond;
  /** The bot's own user: events it caused itself are not listened to (as Bolt's ignoreSelf). */
  botUserId: string;
}

/** A request with no response_url (a Home tab button, say) has nowhere to be answered. */
const noResponseUrl: Respond = async () => {
  throw new Error('this request came without a response_url, so it cannot be answered there');
};

export class ListenerRouter implements ListenerRegistry {
  readonly #commands = new Map<string, Listener<CommandArgs>>();
  readonly #actions = new Map<string, Listener<ActionArgs>>();
  readonly #views = new Map<string, Listener<ViewArgs>>();
  /** Each listener is found by its event's type, so it is given events of that type only. */
  readonly #events = new Map<string, Listener<EventArgs<string>>>();
  readonly #deps: RouterDeps;

  constructor(deps: RouterDeps) {
    this.#deps = deps;
  }

  command(name: string, listener: Listener<CommandArgs>): void {
    this.#commands.set(name, listener);
  }

  action(actionId: string, listener: Listener<ActionArgs>): void {
    this.#actions.set(actionId, listener);
  }

  view(callbackId: string, listener: Listener<ViewArgs>): void {
    this.#views.set(callbackId, listener);
  }

  event<T extends string>(type: T, listener: Listener<EventArgs<T>>): void {
    this.#events.set(type, listener as unknown as Listener<EventArgs<string>>);
  }

  /**
   * Runs the listener of a verified request, if it has one (Slack sends nothing payops did not
   * subscribe to, but a request nobody listens to is simply done). `ack` carries a modal's answer.
   */
  async dispatch(body: Record<string, unknown>, ack: AckFn<unknown>): Promise<void> {
    const { client } = this.#deps;
    if (typeof body.command === 'string') {
      const command = body as unknown as SlashCommand;
      const listener = this.#commands.get(command.command);
      if (listener) await listener({ ack, command, respond: this.#respond(body), client });
    } else if (body.type === 'block_actions') {
      const actionBody = body as unknown as BlockAction<ButtonAction>;
      const action = actionBody.actions?.[0];
      const listener = action && this.#actions.get(action.action_id);
      if (listener) {
        await listener({ ack, body: actionBody, action, respond: this.#respond(body), client });
      }
    } else if (body.type === 'view_submission') {
      const submission = body as unknown as ViewSubmitAction;
      const listener = submission.view && this.#views.get(submission.view.callback_id);
      if (listener) await listener({ ack, body: submission, view: submission.view, client });
    } else if (isRecord(body.event) && typeof body.event.type === 'string') {
      const event = body.event as unknown as KnownEventFromType<string> & { user?: unknown };
      if (event.user !== undefined && event.user === this.#deps.botUserId) return;
      const listener = this.#events.get(event.type);
      if (listener) await listener({ event, client });
    }
  }

  #respond(body: Record<string, unknown>): Respond {
    return typeof body.response_url === 'string'
      ? this.#deps.respondTo(body.response_url)
      : noResponseUrl;
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null;
}
