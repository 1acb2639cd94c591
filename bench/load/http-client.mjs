/**
 * A minimal keep-alive HTTP/1.1 client on a raw socket: one request in flight per connection,
 * responses framed by Content-Length, chunked encoding or connection close. Lighter than
 * node:http's client, so the load process costs less CPU than the servers it measures.
 */
import { connect } from 'node:net';

const HEAD_END = Buffer.from('\r\n\r\n');

export class Connection {
  #host;
  #port;
  #socket;
  #buf = Buffer.alloc(0);
  #pending; // { done } of the request in flight
  #head; // parsed head of the response being read
  #chunks = [];

  constructor(host, port) {
    this.#host = host;
    this.#port = port;
  }

  /** Sends raw request bytes; `done(error, response)` is called exactly once. */
  send(bytes, done) {
    this.#pending = { done };
    if (!this.#socket || this.#socket.destroyed) this.#open();
    this.#socket.write(bytes);
  }

  close() {
    const socket = this.#socket;
    this.#socket = undefined;
    socket?.destroy();
  }

  #open() {
    const socket = connect({ host: this.#host, port: this.#port, noDelay: true });
    this.#socket = socket;
    this.#buf = Buffer.alloc(0);
    this.#head = undefined;
    socket.on('data', (chunk) => {
      if (this.#socket !== socket) return; // an abandoned connection
      this.#buf = this.#buf.length ? Buffer.concat([this.#buf, chunk]) : chunk;
      this.#parse();
    });
    socket.on('error', () => {}); // reported through 'close'
    socket.on('close', () => {
      if (this.#socket !== socket) return; // closed by us, or replaced
      this.#socket = undefined;
      if (!this.#pending) return;
      // A response without framing ends with the connection.
      if (this.#head && this.#head.length < 0 && !this.#head.chunked) return this.#finish(this.#buf, true);
      this.#fail(new Error('connection closed before the response'));
    });
  }

  #parse() {
    if (!this.#pending) return;
    if (!this.#head) {
      const end = this.#buf.indexOf(HEAD_END);
      if (end < 0) return;
      this.#head = parseHead(this.#buf.toString('latin1', 0, end));
      this.#buf = this.#buf.subarray(end + 4);
      this.#chunks = [];
    }
    const head = this.#head;
    if (head.chunked) return this.#parseChunks();
    if (head.length >= 0 && this.#buf.length >= head.length) {
      const body = this.#buf.subarray(0, head.length);
      this.#buf = this.#buf.subarray(head.length);
      this.#finish(body, head.close);
    }
  }

  #parseChunks() {
    for (;;) {
      const eol = this.#buf.indexOf('\r\n');
      if (eol < 0) return;
      const size = parseInt(this.#buf.toString('latin1', 0, eol), 16);
      if (size === 0) {
        const trailerEnd = this.#buf.indexOf(HEAD_END, eol);
        if (trailerEnd < 0) return;
        this.#buf = this.#buf.subarray(trailerEnd + 4);
        return this.#finish(Buffer.concat(this.#chunks), this.#head.close);
      }
      if (this.#buf.length < eol + 2 + size + 2) return;
      this.#chunks.push(this.#buf.subarray(eol + 2, eol + 2 + size));
      this.#buf = this.#buf.subarray(eol + 2 + size + 2);
    }
  }

  #finish(body, close) {
    const { status, type } = this.#head;
    const pending = this.#pending;
    this.#head = undefined;
    this.#pending = undefined;
    if (close) this.close();
    pending.done(undefined, { status, type, body: body.toString('utf8') });
  }

  #fail(error) {
    const pending = this.#pending;
    this.#pending = undefined;
    this.#head = undefined;
    this.close();
    pending?.done(error);
  }

  /** Gives up on the request in flight (a timeout). */
  abort(error) {
    this.#fail(error);
  }
}

function parseHead(text) {
  const lines = text.split('\r\n');
  const head = { status: Number(lines[0].slice(9, 12)), type: '', length: -1, chunked: false, close: false };
  for (let i = 1; i < lines.length; i++) {
    const line = lines[i];
    const colon = line.indexOf(':');
    const name = line.slice(0, colon).toLowerCase();
    const value = line.slice(colon + 1).trim();
    if (name === 'content-length') head.length = Number(value);
    else if (name === 'transfer-encoding') head.chunked = value.toLowerCase().includes('chunked');
    else if (name === 'content-type') head.type = value.toLowerCase();
    else if (name === 'connection') head.close = value.toLowerCase() === 'close';
  }
  if (head.status === 204 || head.status === 304) head.length = 0;
  return head;
}

/** The bytes of one benchmark POST. */
export function postBytes(host, port, path, headers, body) {
  let text = `POST ${path} HTTP/1.1\r\nHost: ${host}:${port}\r\n`;
  for (const [name, value] of Object.entries(headers)) text += `${name}: ${value}\r\n`;
  return `${text}Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`;
}
