/**
 * Where a callback may go (SEP-3415 "SSRF prevention"): an `https` URL whose host resolves only to
 * globally routable addresses, unless the operator's allowlist names the host or the address. The
 * check happens at every send (verification and delivery alike), on addresses this process resolved
 * itself, and the connection then goes to exactly the address that passed (post.ts): a DNS answer
 * that changes between check and connect (rebinding) changes nothing.
 */
import { lookup as dnsLookup } from 'node:dns';
import { BlockList, isIP } from 'node:net';
import { addSubnet, isGlobalAddress, isLoopbackAddress } from './address.js';
import { WebhookParamsError } from './errors.js';

/** Every address a host name resolves to (the `dns.lookup` `{ all: true }` shape). */
export type Resolve = (hostname: string) => Promise<ReadonlyArray<{ address: string; family: number }>>;

export interface EgressPolicy {
  /**
   * Host names (exact, case-insensitive) and CIDRs (`10.1.0.0/16`, `fd00::/8`) a callback may reach
   * even though they are not globally routable: an internal receiver the operator trusts.
   */
  allow?: readonly string[];
  /**
   * Development only: callbacks may use loopback addresses (127.0.0.0/8, ::1, `localhost`), over
   * plain `http` too. The engine logs a warning when it starts with this on.
   */
  allowLoopback?: boolean;
  /** How host names are resolved (tests inject one). Default: `dns.lookup` with `all: true`. */
  resolve?: Resolve;
}

const MAX_URL_LENGTH = 2_048;

/**
 * The callback URL, parsed, if a client may use it: absolute, `https` (or `http` to a loopback host
 * under `allowLoopback`), no credentials, at most 2,048 characters, and, when the host is an IP
 * literal, an allowed address. Host names are checked when resolved, at every send. Throws
 * WebhookParamsError('delivery.url').
 */
export function validateCallbackUrl(url: unknown, policy: EgressPolicy = {}): URL {
  const refuse = (why: string): never => {
    throw new WebhookParamsError('delivery.url', `delivery.url ${why}`);
  };
  if (typeof url !== 'string' || url.length > MAX_URL_LENGTH) return refuse(`must be a URL of at most ${MAX_URL_LENGTH} characters`);
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return refuse('must be an absolute URL');
  }
  const host = bareHost(parsed);
  const loopbackDev = policy.allowLoopback === true && (host === 'localhost' || (isIP(host) !== 0 && isLoopbackAddress(host)));
  if (parsed.protocol !== 'https:' && !(parsed.protocol === 'http:' && loopbackDev)) return refuse('must use https');
  if (parsed.username !== '' || parsed.password !== '') return refuse('must not carry credentials');
  if (isIP(host) !== 0 && !addressAllowed(host, host, policy)) return refuse('must not point at a private, loopback or reserved address');
  return parsed;
}

/** The URL's host without IPv6 brackets, lower-case. */
export function bareHost(url: URL): string {
  return url.hostname.replace(/^\[|\]$/g, '').toLowerCase();
}

/** Whether a connection to `address` (resolved from `host`) is allowed by the policy. */
export function addressAllowed(address: string, host: string, policy: EgressPolicy): boolean {
  if (isGlobalAddress(address)) return true;
  if (policy.allowLoopback === true && isLoopbackAddress(address)) return true;
  return allowList(policy).hosts.has(host) || allowList(policy).addresses.check(address, isIP(address) === 6 ? 'ipv6' : 'ipv4');
}

/** The address to connect to for `url`: its IP literal, or the first of its resolved addresses, all of which must be allowed. */
export async function pickAddress(url: URL, policy: EgressPolicy): Promise<{ address: string; family: 4 | 6 } | 'refused'> {
  const host = bareHost(url);
  const literal = isIP(host);
  const found = literal !== 0 ? [{ address: host, family: literal }] : await (policy.resolve ?? systemResolve)(host).catch(() => []);
  if (found.length === 0) return 'refused';
  // One forbidden answer refuses the host: an attacker's name may mix a public and a private address.
  for (const { address } of found) if (!addressAllowed(address, host, policy)) return 'refused';
  const first = found[0]!;
  return { address: first.address, family: isIP(first.address) === 6 ? 6 : 4 };
}

const systemResolve: Resolve = (hostname) =>
  new Promise((resolve, reject) => dnsLookup(hostname, { all: true, verbatim: true }, (error, addresses) => (error ? reject(error) : resolve(addresses))));

const compiled = new WeakMap<EgressPolicy, { hosts: Set<string>; addresses: BlockList }>();

function allowList(policy: EgressPolicy): { hosts: Set<string>; addresses: BlockList } {
  let list = compiled.get(policy);
  if (list !== undefined) return list;
  list = { hosts: new Set(), addresses: new BlockList() };
  for (const entry of policy.allow ?? []) {
    const [network] = entry.split('/') as [string];
    if (isIP(network) === 0) list.hosts.add(entry.toLowerCase());
    else if (!entry.includes('/')) list.addresses.addAddress(network, isIP(network) === 6 ? 'ipv6' : 'ipv4');
    else addSubnet(list.addresses, entry, isIP(network) === 6 ? 'ipv6' : 'ipv4');
  }
  compiled.set(policy, list);
  return list;
}
