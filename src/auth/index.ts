/**
 * `minimcp/auth`: an OAuth 2.1 resource server for MCP's authorization spec. JWT access tokens are
 * verified with jose (an optional peer: `npm install jose`), on every runtime with Web Crypto.
 */
export { oauthResourceServer, ResourceServer } from './resource-server.js';
export type { ResourceServerOptions } from './options.js';
export type { IntrospectionOptions } from './introspection.js';
export type { AuthInfo } from '../protocol/auth-info.js';
export type { AuthRequest, HttpAuth } from '../transports/http/auth-gate.js';
export { metadataUrls } from './discovery.js';
