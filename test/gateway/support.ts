/** Shared pieces of the gateway tests: the upstreams we did not write, and the official clients. */
import { type ChildProcess, spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { createServer as createNetServer } from 'node:net';
import { Client as ClientV2 } from '@modelcontextprotocol/client';
import { StreamableHTTPClientTransport as TransportV2 } from '@modelcontextprotocol/client';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport as TransportV1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { expect } from 'vitest';
import { CreateMessageRequestSchema, ElicitRequestSchema, ListRootsRequestSchema } from '@modelcontextprotocol/sdk/types.js';

/** server-everything's entry: `node <it> stdio` or `node <it> streamableHttp` (PORT from the environment). */
export const EVERYTHING = createRequire(import.meta.url).resolve('@modelcontextprotocol/server-everything/dist/index.js');

export const ELICITED = { action: 'accept', content: { name: 'Ada Lovelace' } } as const;
export const SAMPLED = { role: 'assistant', content: { type: 'text', text: 'forty-two' }, model: 'test-model' } as const;
export const ROOTS = { roots: [{ uri: 'file:///work', name: 'work' }] };

/** An SDK v1 client (2025-11-25) that answers elicitation, sampling and roots on its stream. */
export async function clientV1(url: string): Promise<ClientV1> {
  const client = new ClientV1({ name: 'v1', version: '1.0.0' }, { capabilities: { elicitation: {}, sampling: {}, roots: {} } });
  client.setRequestHandler(ElicitRequestSchema, async () => ELICITED);
  client.setRequestHandler(CreateMessageRequestSchema, async () => SAMPLED);
  client.setRequestHandler(ListRootsRequestSchema, async () => ROOTS);
  await client.connect(new TransportV1(new URL(url)));
  return client;
}

/** A client v2 (2026-07-28, stateless) that answers the same questions through MRTR. */
export async function clientV2(url: string): Promise<ClientV2> {
  const client = new ClientV2({ name: 'v2', version: '2.0.0' }, { capabilities: { elicitation: {}, sampling: {}, roots: {} }, versionNegotiation: { mode: 'auto' } });
  client.setRequestHandler('elicitation/create', async () => ELICITED);
  client.setRequestHandler('sampling/createMessage', async () => SAMPLED as never);
  client.setRequestHandler('roots/list', async () => ROOTS);
  await client.connect(new TransportV2(new URL(url)));
  return client;
}

/** server-everything over stdio, spoken to directly: what the gateway's lists must equal. */
export async function directEverything(): Promise<ClientV1> {
  // Declares what the gateway declares upstream: server-everything registers some tools only for those.
  const client = new ClientV1({ name: 'direct', version: '1.0.0' }, { capabilities: { elicitation: { form: {}, url: {} }, sampling: {}, roots: {} } });
  client.setRequestHandler(ListRootsRequestSchema, async () => ROOTS);
  await client.connect(new StdioClientTransport({ command: process.execPath, args: [EVERYTHING, 'stdio'], stderr: 'ignore' }));
  return client;
}

/** Tools, prompts, resources and templates seen through `client` equal what `direct` sees; both are closed after. */
export async function expectSameLists(client: ClientV1 | ClientV2, direct: ClientV1 | ClientV2): Promise<void> {
  try {
    expect((await client.listTools()).tools).toEqual((await direct.listTools()).tools);
    expect((await client.listPrompts()).prompts).toEqual((await direct.listPrompts()).prompts);
    expect((await client.listResources()).resources).toEqual((await direct.listResources()).resources);
    expect((await client.listResourceTemplates()).resourceTemplates).toEqual((await direct.listResourceTemplates()).resourceTemplates);
  } finally {
    await client.close();
    await direct.close();
  }
}

export const freePort = (): Promise<number> => new Promise((resolve) => {
  const probe = createNetServer().listen(0, '127.0.0.1', () => {
    const { port } = probe.address() as { port: number };
    probe.close(() => resolve(port));
  });
});

/** Runs a server script and resolves with the child once `ready` matches its output (stdout or stderr). */
export function runServer(args: string[], ready: RegExp, env: Record<string, string> = {}): Promise<{ child: ChildProcess; output: string }> {
  const child = spawn(process.execPath, args, { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  return new Promise((resolve, reject) => {
    let output = '';
    const seen = (chunk: Buffer) => {
      output += chunk.toString();
      if (ready.test(output)) resolve({ child, output });
    };
    child.stdout?.on('data', seen);
    child.stderr?.on('data', seen);
    child.once('exit', () => reject(new Error(`the server exited:\n${output}`)));
  });
}
