/**
 * Issue 23 item 1: what differs on the wire between the protocol families is data, one module per
 * family (src/protocol/revisions/). These hold each module to the spec's differences, so a new
 * revision module is tested the same way.
 */
import { describe, expect, it } from 'vitest';
import { ErrorCode, McpError } from '../../src/protocol/errors.js';
import { REVISIONS } from '../../src/protocol/revisions/index.js';
import type { AdmittedFacts } from '../../src/protocol/revisions/revision.js';
import { META } from '../../src/protocol/versions.js';
import type { TaskRecord } from '../../src/state/task-store.js';

const { handshake, stateless } = REVISIONS;
const record = { taskId: 't1', status: 'completed', createdAt: 'c', lastUpdatedAt: 'u', ttlMs: 60_000, pollIntervalMs: 500, result: { content: [] } } as unknown as TaskRecord;
const headers = (entries: Record<string, string>) => ({ get: (name: string) => entries[name] });
const facts = (): AdmittedFacts => ({ revision: handshake, protocolVersion: '', meta: undefined });

describe('protocol revisions as data', () => {
  it('each family names itself and its versions, newest first', () => {
    expect(handshake.era).toBe('handshake');
    expect(stateless.era).toBe('stateless');
    expect(handshake.versions[0]).toBe('2025-11-25');
    expect(stateless.versions).toEqual(['2026-07-28']);
  });

  it('-32601 is in-band (200) for the handshake family and a 404 for the stateless one', () => {
    expect(handshake.methodNotFound('x').httpStatus).toBeUndefined();
    expect(stateless.methodNotFound('x')).toMatchObject({ code: ErrorCode.MethodNotFound, httpStatus: 404 });
  });

  it('the stateless family never sends the retired codes; the handshake family sends errors as made', () => {
    // The constructor refuses -32002 today; an error built around it (another copy of the library) still maps.
    const retired = Object.assign(Object.create(McpError.prototype) as McpError, { code: ErrorCode.ResourceNotFoundRetired, message: 'Resource not found: x', data: { uri: 'x' } });
    const url = new McpError(ErrorCode.UrlElicitationRequired, 'go there', { elicitations: [] });
    expect(handshake.wireError(retired)).toBe(retired);
    expect(stateless.wireError(retired)).toMatchObject({ code: ErrorCode.InvalidParams, data: { uri: 'x' } });
    expect(stateless.wireError(url).code).toBe(ErrorCode.InternalError);
  });

  it('only stateless results carry resultType and cache hints', () => {
    const hint = { ttlMs: 5, cacheScope: 'public' as const };
    expect(handshake.shapeResult({ tools: [] }, hint)).toEqual({ tools: [] });
    expect(stateless.shapeResult({ tools: [] }, hint)).toEqual({ tools: [], ttlMs: 5, cacheScope: 'public', resultType: 'complete' });
    expect([handshake.caches, stateless.caches]).toEqual([false, true]);
  });

  it('tasks: nested with ttl/pollInterval (2025), flat with ttlMs/pollIntervalMs under the extension (2026)', () => {
    expect(handshake.taskCreated(record)).toEqual({ task: expect.objectContaining({ taskId: 't1', ttl: 60_000, pollInterval: 500 }) });
    expect(stateless.taskCreated(record)).toMatchObject({ resultType: 'task', taskId: 't1', ttlMs: 60_000, pollIntervalMs: 500 });
    expect(stateless.task(record)).toMatchObject({ result: { content: [] } });
    expect(() => handshake.taskCancelled(record, true)).toThrow(/already completed/);
    expect(stateless.taskCancelled(record, true)).toEqual({});
    const caps2025: Record<string, unknown> = {};
    const caps2026: Record<string, unknown> = { extensions: { 'com.acme/x': {} } };
    handshake.declareTasks(caps2025);
    stateless.declareTasks(caps2026);
    expect(caps2025.tasks).toMatchObject({ requests: { tools: { call: {} } } });
    expect(caps2026.extensions).toEqual({ 'com.acme/x': {}, 'io.modelcontextprotocol/tasks': {} });
    expect([handshake.tasksStartAtOnce, handshake.relaysTaskMessages, handshake.toolErrorFailsTask]).toEqual([true, true, true]);
    expect([stateless.tasksStartAtOnce, stateless.relaysTaskMessages, stateless.toolErrorFailsTask]).toEqual([false, false, false]);
  });

  it('streams: only the handshake family has sessions, resumable SSE and a GET endpoint', () => {
    expect([handshake.sessions, handshake.resumableStreams, handshake.servesGet]).toEqual([true, true, true]);
    expect([stateless.sessions, stateless.resumableStreams, stateless.servesGet]).toEqual([false, false, false]);
  });

  it('admission: the handshake family checks the HTTP version header; the stateless one climbs the _meta ladder', () => {
    const into = facts();
    expect(handshake.admit(into, 'ping', undefined, headers({ 'mcp-protocol-version': '2024-01-01' }), undefined)?.httpStatus).toBe(400);
    expect(handshake.admit(into, 'ping', undefined, undefined, '2025-06-18')).toBeUndefined();
    expect(into).toMatchObject({ revision: handshake, protocolVersion: '2025-06-18', meta: undefined });
    const meta = { [META.protocolVersion]: '2026-07-28', [META.clientCapabilities]: {} };
    expect(stateless.admit(into, 'tools/list', { _meta: {} }, undefined, undefined)?.code).toBe(ErrorCode.InvalidParams);
    expect(stateless.admit(into, 'tools/list', { _meta: { ...meta, [META.protocolVersion]: '2027-01-01' } }, undefined, undefined)?.code).toBe(ErrorCode.UnsupportedProtocolVersion);
    expect(stateless.admit(into, 'tools/list', { _meta: meta }, undefined, undefined)).toBeUndefined();
    expect(into).toMatchObject({ revision: stateless, protocolVersion: '2026-07-28', meta: { clientCapabilities: {} } });
  });
});
