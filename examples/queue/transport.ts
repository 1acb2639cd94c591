/**
 * MiniMCP over a message queue, written the way a third party would: only the public entry
 * `mcp.route(message, facts, sink)` and the exported types. Clients publish JSON-RPC text to
 * `<topic>`; each client's replies and server messages go to `<topic>/<client>`. The broker's view of
 * who published a message is the principal, and each client keeps one 2025 connection.
 */
import { Cancellation, type Connection, type MessageFacts, type MiniMCP, type Outcome, type OutcomeSink } from '../../src/index.js';
import type { Delivery, Queue } from './queue.js';

export interface QueueServer {
  /** Stops serving: in-flight handlers are aborted (their signal fires), and later messages are ignored. */
  close(): void;
}

/** One client of the queue: its facts (the same object for every message it sends) and its sink. */
class QueueClient implements OutcomeSink {
  readonly facts: MessageFacts;
  readonly #reply: (text: string) => void;

  constructor(queue: Queue, topic: string, readonly name: string, shutdown: Cancellation) {
    const replyTopic = `${topic}/${name}`;
    this.#reply = (text) => queue.publish(replyTopic, 'server', text);
    const connection: Connection = { id: `queue:${name}` };
    const send = (message: object): void => this.#reply(JSON.stringify(message));
    this.facts = { send, connection, principal: name, signal: shutdown };
  }

  /** An outcome that was not ready at once (an asynchronous handler). */
  deliver(outcome: Outcome): void {
    if (outcome.reply !== undefined) this.#reply(JSON.stringify(outcome.reply));
  }
}

export function serveQueue(mcp: MiniMCP, queue: Queue, topic = 'mcp'): QueueServer {
  const clients = new Map<string, QueueClient>();
  const shutdown = new Cancellation();
  const onDelivery = ({ from, text }: Delivery): void => {
    if (shutdown.aborted) return;
    let client = clients.get(from);
    if (!client) clients.set(from, (client = new QueueClient(queue, topic, from, shutdown)));
    // Ready at once (a synchronous handler, a notification): answered here, without a promise.
    const outcome = mcp.route(text, client.facts, client);
    if (outcome !== undefined) client.deliver(outcome);
  };
  const unsubscribe = queue.subscribe(topic, onDelivery);
  return {
    close() {
      unsubscribe();
      shutdown.abort(new Error('the queue server closed'));
    },
  };
}
