import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { type AckFn, App, type CustomRoute, LogLevel, type RespondFn } from '@slack/bolt';
import type { Config, SlackConfig } from '../config.ts';
import type { Logger } from '../logger.ts';
import { boltLogger } from './bolt-logger.ts';
import type { BotIdentity } from './directory.ts';

/**
 * The front door: Slack's requests arrive here (HTTP or Socket Mode), Bolt verifies them, and
 * each is acknowledged at once and handed to the engine, which does the work. Nothing here waits
 * for the store or the provider, so an acknowledgement never queues behind anyone's work —
 * except a modal submission, whose acknowledgement carries the engine's answer (field errors).
 */

/** A verified Slack request, as the engine's listeners take it. */
export interface ForwardedEvent {
  body: Record<string, unknown>;
}

export interface Readiness {
  ready: boolean;
  checks: Record<string, boolean>;
}

/** The engine as the ingress sees it: in this thread, or in a worker thread. */
export interface EngineLink {
  /** Work done after the ingress has acknowledged the request. */
  forward(event: ForwardedEvent): void;
  /** A request whose acknowledgement carries the engine's answer: resolves with that answer. */
  answerForAck(event: ForwardedEvent): Promise<unknown>;
  /** What `/readyz` reports: each dependency the bot needs to serve requests. */
  readiness(): Promise<Readiness>;
  /** Requests handed to the engine and not yet finished (queued, or being worked on). */
  backlog(): number;
}

export interface IngressDeps {
  slack: SlackConfig;
  logger: Logger;
  identity: BotIdentity;
  engine: EngineLink;
}

/** What a person is told when the engine's backlog is full: nothing of theirs was done. */
export const OVERLOADED_TEXT =
  'payops is overloaded right now, so it did nothing with this: no request was read, recorded or sent. Try again in a minute.';

/** Web API calls are retried a little, never for half an hour as the SDK default would. */
export const WEB_API_RETRIES = { retries: 2, factor: 2, minTimeout: 250, maxTimeout: 2_000 };

export function createIngressApp(deps: IngressDeps): App {
  const { slack, identity, engine } = deps;
  const overload = new OverloadLog(deps.logger);
  const routes: CustomRoute[] = [
    { path: '/healthz', method: ['GET'], handler: (_req, res) => json(res, 200, { alive: true }) },
    {
      path: '/readyz',
      method: ['GET'],
      handler: (_req: IncomingMessage, res: ServerResponse) => {
        engine
          .readiness()
          .then((readiness) => json(res, readiness.ready ? 200 : 503, readiness))
          .catch(() => json(res, 503, { ready: false, checks: {} }));
      },
    },
  ];
  const app = new App({
    token: slack.botToken,
    signingSecret: slack.signingSecret,
    botId: identity.botId,
    botUserId: identity.botUserId,
    logger: boltLogger(deps.logger),
    logLevel: LogLevel.DEBUG,
    customRoutes: routes,
    // payops keeps no per-conversation state in Bolt: no store lookups inside an ack.
    convoStore: false,
    clientOptions: {
      ...(slack.apiUrl ? { slackApiUrl: slack.apiUrl } : {}),
      retryConfig: WEB_API_RETRIES,
    },
    ...(slack.appToken
      ? { socketMode: true, appToken: slack.appToken, installerOptions: { port: slack.port } }
      : { port: slack.port }),
  });
  // One global middleware and no listeners: every request goes to the engine, which has them all.
  app.use(async (args) => {
    const { body } = args;
    const ack = (args as { ack?: AckFn<unknown> }).ack;
    const event: ForwardedEvent = { body: body as unknown as Record<string, unknown> };
    if (ack && body.type === 'view_submission') {
      // A form's answer comes from the engine inside the ack: never shed, a person waits on it.
      await ack(await engine.answerForAck(event));
      return;
    }
    if (engine.backlog() >= slack.maxBacklog) {
      overload.shed();
      await shed(
        body as unknown as Record<string, unknown>,
        ack,
        (args as { respond?: RespondFn }).respond,
      );
      return;
    }
    // Events API requests come already acknowledged by Bolt (no `ack`).
    await ack?.();
    engine.forward(event);
  });
  return app;
}

/**
 * Past the backlog bound a request is answered here and never reaches the engine, so memory
 * stays bounded however fast requests come. A command's answer rides in its ack; a click is
 * told through its response_url; an event (already acknowledged) is dropped — an App Home
 * left undrawn, a group cache refreshed at its expiry instead.
 */
async function shed(
  body: Record<string, unknown>,
  ack: AckFn<unknown> | undefined,
  respond: RespondFn | undefined,
): Promise<void> {
  if (typeof body.command === 'string') {
    await ack?.({ response_type: 'ephemeral', text: OVERLOADED_TEXT });
    return;
  }
  await ack?.();
  await respond?.({
    response_type: 'ephemeral',
    replace_original: false,
    text: OVERLOADED_TEXT,
  }).catch(() => undefined);
}

/** One warning a second at most while shedding, with how many were shed. */
class OverloadLog {
  #since = 0;
  #count = 0;

  constructor(private readonly logger: Logger) {}

  shed(): void {
    this.#count++;
    const now = Date.now();
    if (now - this.#since < 1_000) return;
    this.logger.warn(
      { shed: this.#count },
      'engine backlog full: requests answered "overloaded" and not worked on',
    );
    this.#since = now;
    this.#count = 0;
  }
}

/**
 * Starts the ingress on its port (HTTP) or socket (Socket Mode); resolves with the HTTP port.
 * If it cannot start (port taken, Socket Mode refused), the engine is stopped before the error
 * is thrown: it must not run on, sweeping and holding the store, behind no front door.
 */
export async function startIngress(
  ingress: App,
  config: Config,
  logger: Logger,
  engine: { where: 'this thread' | 'worker thread'; stop(): Promise<void> },
): Promise<number | undefined> {
  let started: Server | undefined;
  try {
    started = (await ingress.start({ port: config.slack.port, host: config.slack.host })) as
      | Server
      | undefined;
  } catch (error) {
    await engine.stop();
    throw error;
  }
  const address = started?.address?.();
  const port = typeof address === 'object' && address ? address.port : config.slack.port;
  logger.info(
    {
      port,
      mode: config.slack.appToken ? 'socket' : 'http',
      command: config.slack.command,
      store: config.store.databaseUrl ? 'postgres' : 'pglite',
      engine: engine.where,
    },
    'payops is listening',
  );
  return port;
}

function json(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
}
