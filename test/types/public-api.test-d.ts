/**
 * Type tests of the public API, checked by `npm run typecheck` (tsc over test/; this file never runs).
 * Each `expectTypeOf` fails the check when a public type weakens (to `any`, `unknown`, a wider record),
 * and each `@ts-expect-error` fails it when a mistake stops being a type error.
 */
import type { IncomingMessage } from 'node:http';
import express from 'express';
import fastify from 'fastify';
import { Hono } from 'hono';
import {
  type AuthInfo as CoreAuthInfo,
  type CallToolResult,
  type Context,
  type MessageFacts,
  type JsonObject,
  type JsonSchema,
  MiniMCP,
  type TemplateVariables,
} from 'minimcp';
import { type AuthInfo, oauthResourceServer } from 'minimcp/auth';
import { mcpExpress } from 'minimcp/express';
import { mcpFastify } from 'minimcp/fastify';
import { mcpHono } from 'minimcp/hono';
import { createFetchHandler } from 'minimcp/http';
import { createNodeHandler, serve } from 'minimcp/node';
import { serveStdio } from 'minimcp/stdio';
import { createTestClient } from 'minimcp/testing';
import * as v from 'valibot';
import { expectTypeOf } from 'vitest';
import * as z from 'zod';

const mcp = new MiniMCP({ name: 'types', version: '1' });

// ---- tool arguments, from each kind of schema -------------------------------------------------------

mcp.tool('zod', { input: z.object({ a: z.number(), tags: z.array(z.string()).optional() }) }, (args) => {
  expectTypeOf(args).toEqualTypeOf<{ a: number; tags?: string[] | undefined }>();
  return '';
});

mcp.tool('zod-transform', { input: z.object({ when: z.string().transform((s) => new Date(s)) }) }, (args) => {
  expectTypeOf(args.when).toEqualTypeOf<Date>(); // the schema's output type, after transforms
  return '';
});

mcp.tool('valibot', { input: v.object({ city: v.string(), days: v.optional(v.number(), 3) }) }, (args) => {
  expectTypeOf(args).toEqualTypeOf<{ city: string; days: number }>();
  return '';
});

// A raw JSON Schema written inline is read literally (no `as const` needed).
mcp.tool(
  'json-schema',
  {
    input: {
      type: 'object',
      properties: {
        n: { type: 'integer' },
        unit: { enum: ['m', 'km'] },
        tags: { type: 'array', items: { type: 'string' } },
        note: { type: ['string', 'null'] },
        at: { type: 'object', properties: { lat: { type: 'number' } }, required: ['lat'], additionalProperties: false },
      },
      required: ['n', 'unit'],
      additionalProperties: false,
    },
  },
  (args) => {
    expectTypeOf(args).toEqualTypeOf<{ n: number; unit: 'm' | 'km'; tags?: string[]; note?: string | null; at?: { lat: number } }>();
    return '';
  },
);

mcp.tool('json-schema-open', { input: { type: 'object', properties: { n: { type: 'integer' } }, required: ['n'] } }, (args) => {
  expectTypeOf(args).toEqualTypeOf<{ [key: string]: unknown; n: number }>(); // additional properties are allowed
  return '';
});

// @ts-expect-error `m` is not a property of the schema (it allows no others)
mcp.tool('json-schema-typo', { input: { type: 'object', properties: { n: { type: 'integer' } }, additionalProperties: false } }, ({ m }) => String(m));

const schemaFromElsewhere: JsonSchema = { type: 'object' };
mcp.tool('json-schema-unknown', { input: schemaFromElsewhere }, (args) => {
  expectTypeOf(args).toEqualTypeOf<Record<string, unknown>>(); // a schema typed only as JsonSchema
  return '';
});

mcp.tool('no-input', {}, (args, ctx) => {
  expectTypeOf(args).toEqualTypeOf<Record<string, unknown>>();
  expectTypeOf(ctx).toEqualTypeOf<Context<unknown>>();
  return '';
});

// @ts-expect-error `b` is not in the schema
mcp.tool('zod-typo', { input: z.object({ a: z.number() }) }, ({ b }) => String(b));

// ---- tool results, from the output schema ------------------------------------------------------------

const Forecast = z.object({ city: z.string(), celsius: z.number() });

mcp.tool('forecast', { input: z.object({ city: z.string() }), output: Forecast }, ({ city }) => ({ city, celsius: 21 }));
mcp.tool('forecast-async', { output: Forecast }, async () => ({ city: 'Oslo', celsius: 21 }));
mcp.tool('forecast-full', { output: Forecast }, (): CallToolResult => ({ content: [], structuredContent: { city: 'Oslo', celsius: 21 } }));
// A full result literal, unannotated: its content blocks keep their literal `type` (this failed to compile before).
mcp.tool('forecast-literal', { output: Forecast }, () => ({
  content: [{ type: 'text', text: 'Oslo: 21 °C' }],
  structuredContent: { city: 'Oslo', celsius: 21 },
}));
mcp.tool('forecast-literal-async', { output: Forecast }, async () => ({ content: [{ type: 'text', text: 'ok' }], isError: true }));
// @ts-expect-error celsius must be a number
mcp.tool('forecast-wrong', { output: Forecast }, () => ({ city: 'Oslo', celsius: '21' }));
// @ts-expect-error city is missing
mcp.tool('forecast-missing', { output: Forecast }, async () => ({ celsius: 21 }));
mcp.tool('free-form', {}, () => 42); // without `output` a tool may return anything
const Point = { type: 'object', properties: { x: { type: 'number' } }, required: ['x'], additionalProperties: false } as const;
mcp.tool('point', { output: Point }, () => ({ x: 1 }));
// @ts-expect-error x must be a number (raw JSON Schema output)
mcp.tool('point-wrong', { output: Point }, () => ({ x: '1' }));

// ---- prompts ------------------------------------------------------------------------------------------

mcp.prompt('explain', { arguments: z.object({ topic: z.string() }) }, (args) => {
  expectTypeOf(args).toEqualTypeOf<{ topic: string }>();
  return `Explain ${args.topic}`;
});

// ---- programmatic calls -------------------------------------------------------------------------------

// `| undefined` written out: an optional parameter takes undefined under every flag, and TypeScript 7
// keeps that apart from a bare optional tuple element under exactOptionalPropertyTypes.
expectTypeOf(mcp.tools.call).parameters.toEqualTypeOf<[name: string, args?: JsonObject | undefined, opts?: MessageFacts<unknown> | undefined]>();
expectTypeOf(mcp.tools.call('zod', { a: 1 })).resolves.toEqualTypeOf<JsonObject>();
expectTypeOf(mcp.resources.read('x://y')).resolves.toEqualTypeOf<JsonObject>();

// ---- resource template variables, from the template string -------------------------------------------

mcp.resourceTemplate('db://{table}/{id}', { name: 'row' }, (uri, vars, ctx) => {
  expectTypeOf(uri).toEqualTypeOf<string>();
  expectTypeOf(vars).toEqualTypeOf<{ table: string; id: string }>();
  expectTypeOf(ctx).toEqualTypeOf<Context<unknown>>();
  return '';
});

// @ts-expect-error `tabel` is not a variable of the template
mcp.resourceTemplate('db://{table}/{id}', {}, (_uri, { tabel }) => tabel);

mcp.resourceTemplate('db://{table}', { complete: { table: () => ['users'] } }, () => '');
// @ts-expect-error completion for a variable the template does not have
mcp.resourceTemplate('db://{table}', { complete: { tabel: () => ['users'] } }, () => '');

expectTypeOf<TemplateVariables<'file:///{+path}'>>().toEqualTypeOf<{ path: string }>();
expectTypeOf<TemplateVariables<'x://{a,b}'>>().toEqualTypeOf<{ a: string; b?: string }>();
expectTypeOf<TemplateVariables<'x://p{/segments*}'>>().toEqualTypeOf<{ segments?: string[] }>();
expectTypeOf<TemplateVariables<'x://s{?q,limit}{&page}'>>().toEqualTypeOf<{ q?: string; limit?: string; page?: string }>();
expectTypeOf<TemplateVariables<'x://{name:3}{#frag}'>>().toEqualTypeOf<{ name: string; frag?: string }>();
expectTypeOf<TemplateVariables<'x://fixed'>>().toEqualTypeOf<{}>();
// A template that is not a literal type keeps the untyped record.
expectTypeOf<TemplateVariables<string>>().toEqualTypeOf<Record<string, string | string[]>>();

// ---- scope --------------------------------------------------------------------------------------------

type Scope = { user: string; plan: 'free' | 'pro' };
const scoped = new MiniMCP<Scope>({ name: 'scoped', version: '1', principal: (scope) => scope?.user });

scoped.tool('whoami', {}, (_args, ctx) => {
  expectTypeOf(ctx.scope).toEqualTypeOf<Scope>();
  return ctx.scope.user;
});
scoped.resourceTemplate('u://{id}', {}, (_uri, _vars, ctx) => {
  expectTypeOf(ctx.scope).toEqualTypeOf<Scope>();
  return '';
});
scoped.use({
  before: (_request, ctx) => {
    expectTypeOf(ctx.scope).toEqualTypeOf<Scope>();
  },
});
expectTypeOf(scoped.tools.call).parameter(2).toEqualTypeOf<MessageFacts<Scope> | undefined>();

const userOf = (req: IncomingMessage) => req.headers['x-user'] as string;

// The scope type comes from the server: a literal in the factory stays a literal ('pro' is not widened to string).
void serve(scoped, { port: 0, scope: (req) => ({ user: userOf(req), plan: 'pro' }) });
void serve(scoped, { scope: async () => ({ user: 'a', plan: 'free' }) });
createNodeHandler(scoped, { scope: () => ({ user: 'a', plan: 'pro' }) });
serveStdio(scoped, { scope: { user: 'local', plan: 'free' } });
express().all('/mcp', mcpExpress(scoped, { scope: (req) => ({ user: String(req.get('x-user')), plan: 'pro' }) }));
new Hono().all('/mcp', mcpHono(scoped, { scope: (c) => ({ user: c.req.header('x-user') ?? '', plan: 'pro' }) }));
void fastify().register(mcpFastify(scoped, { scope: (request) => ({ user: String(request.headers['x-user']), plan: 'pro' }) }));

// A server whose Scope cannot be undefined needs a scope: without one, ctx.scope would be undefined at run time.
// @ts-expect-error scope is required
void serve(scoped, { port: 0 });
// @ts-expect-error the options (and their scope) are required
void serve(scoped);
// @ts-expect-error scope is required
serveStdio(scoped);
// @ts-expect-error scope is required
createNodeHandler(scoped, {});
// @ts-expect-error scope is required
express().all('/mcp', mcpExpress(scoped));
// @ts-expect-error scope is required
new Hono().all('/mcp', mcpHono(scoped, {}));
// @ts-expect-error scope is required
void fastify().register(mcpFastify(scoped));
// The in-process test client too (issue 26 item 4): it compiled without a scope.
// @ts-expect-error scope is required
createTestClient(scoped);
// @ts-expect-error scope is required
createTestClient(scoped, { era: '2026-07-28' });
// @ts-expect-error 'gold' is not a plan
createTestClient(scoped, { scope: { user: 'a', plan: 'gold' } });
createTestClient(scoped, { scope: { user: 'a', plan: 'pro' } });
createTestClient(mcp); // a server without a Scope type needs none
// A token for the in-process client (issue 32, item 3): subject and scopes, claims optional.
createTestClient(scoped, { scope: { user: 'ada', plan: 'pro' }, auth: { subject: 'ada', scopes: ['notes:read'], claims: { team: 'blue' } } });
createTestClient(mcp, { era: '2026-07-28', auth: { subject: 'ada', scopes: [] } });
// @ts-expect-error the scopes are required
createTestClient(mcp, { auth: { subject: 'ada' } });

// A factory that does not produce the server's Scope is the error (not the server argument).
// @ts-expect-error 'gold' is not a plan
void serve(scoped, { scope: () => ({ user: 'a', plan: 'gold' }) });
// @ts-expect-error user is missing
serveStdio(scoped, { scope: { plan: 'pro' } });

// createFetchHandler takes the scope per call as well, so it may be left out there; its type still comes from the server.
const fetchHandler = createFetchHandler(scoped);
void fetchHandler(new Request('http://127.0.0.1/mcp'), { scope: { user: 'a', plan: 'pro' } });
// @ts-expect-error 'gold' is not a plan
void fetchHandler(new Request('http://127.0.0.1/mcp'), { scope: { user: 'a', plan: 'gold' } });
// @ts-expect-error 'gold' is not a plan
createFetchHandler(scoped, { scope: () => ({ user: 'a', plan: 'gold' }) });

// A Scope that allows undefined (and the default, unknown) keeps the options optional.
const optional = new MiniMCP<{ user: string } | undefined>({ name: 'optional', version: '1' });
void serve(optional);
serveStdio(optional);
express().all('/mcp', mcpExpress(optional));
void serve(mcp);
serveStdio(mcp);
void serve(mcp, { scope: () => 'anything' });
const optionalPlan = new MiniMCP<{ plan: 'free' | 'pro' } | undefined>({ name: 'optional-plan', version: '1' });
void serve(optionalPlan, { scope: () => ({ plan: 'pro' }) });
serveStdio(optionalPlan, { scope: { plan: 'pro' } });

// ---- the scope factory receives the verified token (issue 32, item 2) -----------------------------------

const auth = oauthResourceServer({ issuer: 'https://auth.example.com/', resource: 'https://mcp.example.com/mcp' });
expectTypeOf<AuthInfo>().toEqualTypeOf<CoreAuthInfo>();
// With the auth option where the factory is, `auth` is the token: no undefined to rule out.
const fromToken = (token: AuthInfo): Scope => ({ user: token.subject, plan: token.scopes.includes('pro') ? 'pro' : 'free' });
void serve(scoped, {
  auth,
  scope: (_req, { auth }) => {
    expectTypeOf(auth).toEqualTypeOf<AuthInfo>();
    return fromToken(auth);
  },
});
createNodeHandler(scoped, {
  auth,
  scope: (req, { auth }) => {
    expectTypeOf(req).toEqualTypeOf<IncomingMessage>();
    return fromToken(auth);
  },
});
createFetchHandler(scoped, {
  auth,
  scope: async (request, { auth }) => {
    expectTypeOf(request).toEqualTypeOf<Request>();
    return fromToken(auth);
  },
});
express().all('/mcp', mcpExpress(scoped, { auth, scope: (req, { auth }) => ({ ...fromToken(auth), user: req.get('x-user') ?? auth.subject }) }));
new Hono().all('/mcp', mcpHono(scoped, { auth, scope: (c, { auth }) => ({ ...fromToken(auth), user: c.req.header('x-user') ?? auth.subject }) }));
void fastify().register(
  mcpFastify(scoped, { auth, scope: (request, { auth }) => ({ ...fromToken(auth), user: String(request.headers['x-user'] ?? auth.subject) }) }),
);
// Without the option there may be no token.
void serve(scoped, {
  scope: (_req, { auth }) => {
    expectTypeOf(auth).toEqualTypeOf<AuthInfo | undefined>();
    return { user: auth?.subject ?? 'anonymous', plan: 'free' };
  },
});
// @ts-expect-error auth is possibly undefined without the auth option
void serve(scoped, { scope: (_req, { auth }) => fromToken(auth) });
// @ts-expect-error auth is possibly undefined without the auth option
createNodeHandler(scoped, { scope: (_req, { auth }) => fromToken(auth) });
// @ts-expect-error auth is possibly undefined without the auth option
createFetchHandler(scoped, { scope: (_request, { auth }) => fromToken(auth) });
// @ts-expect-error auth is possibly undefined without the auth option
express().all('/mcp', mcpExpress(scoped, { scope: (_req, { auth }) => fromToken(auth) }));
// @ts-expect-error auth is possibly undefined without the auth option
new Hono().all('/mcp', mcpHono(scoped, { scope: (_c, { auth }) => fromToken(auth) }));
// @ts-expect-error auth is possibly undefined without the auth option
void fastify().register(mcpFastify(scoped, { scope: (_request, { auth }) => fromToken(auth) }));
// An auth option that may be absent (`auth: process.env.X ? server : undefined`): check the token. (Only
// under exactOptionalPropertyTypes does the compiler insist: without it an optional property's inference
// drops the undefined, as it does everywhere in TypeScript.)
const maybeAuth = Math.random() > 0.5 ? auth : undefined;
void serve(scoped, { auth: maybeAuth, scope: (_req, { auth }) => (auth ? fromToken(auth) : { user: 'local', plan: 'free' }) });
// A factory that reads only the request still fits; the scope is still required with auth.
void serve(scoped, { auth, scope: (req) => ({ user: userOf(req), plan: 'pro' }) });
// @ts-expect-error scope is required
void serve(scoped, { auth });
// An explicit Scope type argument still takes the auth option; the token is then typed as maybe absent.
createNodeHandler<Scope>(scoped, { auth, scope: (_req, { auth }) => (auth ? fromToken(auth) : { user: 'anonymous', plan: 'free' }) });
createFetchHandler<Scope>(scoped, { auth, scope: (_request, { auth }) => (auth ? fromToken(auth) : { user: 'anonymous', plan: 'free' }) });

// ---- extension methods and skills ---------------------------------------------------------------------

mcp.method('acme/typed', { params: z.object({ q: z.string(), n: z.number().default(3) }) }, (params, ctx) => {
  expectTypeOf(params).toEqualTypeOf<{ q: string; n: number }>();
  expectTypeOf(ctx).toEqualTypeOf<Context<unknown>>();
  return { hits: params.n };
});
mcp.method('acme/raw', { params: { type: 'object' } }, (params) => {
  expectTypeOf(params).toEqualTypeOf<JsonObject>();
  return undefined;
});
// @ts-expect-error a result must be an object, not a string
mcp.method('acme/bad', {}, () => 'text');
// @ts-expect-error eras is 'legacy', 'modern' or 'both'
mcp.method('acme/era', { eras: 'new' }, () => ({}));
mcp.notification('notifications/acme/seen', { params: z.object({ id: z.string() }) }, (params, sender) => {
  expectTypeOf(params).toEqualTypeOf<{ id: string }>();
  expectTypeOf(sender.principal).toEqualTypeOf<string>();
});
expectTypeOf(mcp.skills('./skills')).toEqualTypeOf<Promise<typeof mcp>>();
void mcp.skill({ path: 'acme/refunds', files: { 'SKILL.md': '---\nname: refunds\ndescription: x\n---\n', 'data.md': () => 'made per read' } });
// @ts-expect-error files map relative paths to text, bytes or a function
void mcp.skill({ path: 'refunds', files: { 'SKILL.md': 12 } });
