/**
 * The principal from a token isolates state across a cluster (issue 25, item 4): 3 instances on a real
 * Redis behind real nginx round-robin, each protected by `minimcp/auth` trusting a real authorization
 * server (oidc-provider, in this process). alice and bob have their own tokens; nothing else names a
 * principal. bob cannot read alice's task nor resume alice's stream through any instance, while alice can
 * through instances other than the one that ran it.
 */
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startIssuer, type TestIssuer } from '../support/oidc-issuer.js';
import { clusterAvailable, startCluster, type Balancer, type Cluster, type Member } from './support/cluster.js';
import { events, get, initialize, messages, post, request, sseReader } from './support/http.js';

const available = clusterAvailable();
const SECRET = 'a-shared-secret-of-at-least-32-bytes!!';
const ENTRY = fileURLToPath(new URL('./support/auth-member.ts', import.meta.url));
/** The canonical URI every member serves as (the tokens' audience), as behind a real balancer. */
const RESOURCE = 'http://127.0.0.1/cluster/mcp';

describe.skipIf(!available)('tokens across 3 instances (Redis, nginx round-robin): the principal is the token\'s', () => {
  let issuer: TestIssuer;
  let members: Member[] = [];
  let lb: Balancer;
  let cluster: Cluster | undefined;
  const bearer: Record<'alice' | 'bob', Record<string, string>> = { alice: {}, bob: {} };

  beforeAll(async () => {
    issuer = await startIssuer();
    const env = { MINIMCP_SECRET: SECRET, MINIMCP_REDIS_PREFIX: `ca${process.pid}:`, AUTH_ISSUER: issuer.issuer, AUTH_RESOURCE: RESOURCE };
    cluster = await startCluster({ script: ENTRY, env });
    ({ members, balancer: lb } = cluster);
    for (const user of ['alice', 'bob'] as const) {
      bearer[user] = { authorization: `Bearer ${await issuer.clientToken(`${user}-app`, RESOURCE, 'mcp:tools')}` };
    }
  }, 120_000);
  afterAll(async () => {
    await cluster?.stop();
    await issuer?.close();
  });

  it('refuses a request without a token on every instance (the members really check tokens)', async () => {
    for (const member of members) expect((await post(member.url, request('ping'))).status).toBe(401);
  });

  it("bob cannot read alice's task through any instance; alice reads it through every one", async () => {
    const alice = await initialize(lb.url, {}, bearer.alice);
    const bob = await initialize(lb.url, {}, bearer.bob);
    const started = await (await post(lb.url, request('tools/call', { name: 'later', arguments: {}, task: { ttl: 60_000 } }), alice)).json();
    const taskId = started.result?.task?.taskId;
    expect(typeof taskId).toBe('string');
    const read = async (member: Member, headers: Record<string, string>) => (await post(member.url, request('tasks/get', { taskId }), headers)).json();
    for (const member of members) {
      expect((await read(member, alice)).result).toMatchObject({ taskId });
      expect((await read(member, bob)).error).toMatchObject({ code: -32602 }); // as if it did not exist
      // bob holding alice's session id too: her session is not his.
      expect((await post(member.url, request('tasks/get', { taskId }), { ...alice, ...bearer.bob })).status).toBe(404);
    }
  });

  it("bob cannot resume alice's stream on another instance, even with her session id and the Last-Event-ID; alice can", async () => {
    const [owner, ...others] = members as [Member, Member, Member];
    const alice = await initialize(owner.url, {}, bearer.alice);
    const bob = await initialize(owner.url, {}, bearer.bob);
    const client = new AbortController();
    // 1.5 s between events: a slowed client still drops the stream before its result.
    const response = await post(owner.url, request('tools/call', { name: 'steps', arguments: { pauseMs: 1500 }, _meta: { progressToken: 's' } }, 'alice-steps'), alice, client.signal);
    const text = await sseReader(response).until((t) => t.includes('"progress":1'));
    const lastId = events(text).find((e) => e.data.includes('"progress":1'))!.id!;
    client.abort();
    for (const other of others) {
      for (const headers of [{ ...alice, ...bearer.bob }, bob]) {
        const stolen = await get(other.url, { ...headers, 'last-event-id': lastId });
        expect(stolen.status).toBe(404);
        expect(await stolen.text()).not.toContain('all steps done');
      }
    }
    const resumed = await get(others[0].url, { ...alice, 'last-event-id': lastId });
    expect(resumed.status).toBe(200);
    const rest = messages(await resumed.text());
    expect(rest.map((m) => m.method ?? 'result')).toEqual(['notifications/progress', 'result']);
    expect(rest[1]).toMatchObject({ id: 'alice-steps', result: { content: [{ text: 'all steps done' }] } });
  });
});
