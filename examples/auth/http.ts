/**
 * `PORT=N AUTH_ISSUER=<issuer URL> npm run -s start:auth`: the math example at http://127.0.0.1:N/mcp,
 * accepting JWT access tokens from that issuer whose audience is that URL (tools need `mcp:tools`).
 * Without AUTH_ISSUER it starts a local authorization server (oidc-provider) and prints its URL.
 */
import { startAuthExample } from './server.js';

const example = await startAuthExample({ port: Number(process.env.PORT ?? 3000), issuer: process.env.AUTH_ISSUER || undefined });
const origin = new URL(example.url).origin;
console.log(`MiniMCP auth example listening on ${example.url}`);
console.log(`Authorization server${example.localIssuer ? ' (local demo, any login works)' : ''}: ${example.issuer}`);
console.log(`Protected Resource Metadata: ${origin}/.well-known/oauth-protected-resource/mcp`);
console.log(`Server card (public): ${example.url}/server-card`);
console.log(`Try it: npx @modelcontextprotocol/inspector, then connect to ${example.url} (Streamable HTTP) and follow its OAuth flow.`);

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => void example.close().then(() => process.exit(0)));
}
