/**
 * DNS-rebinding protection: a page on evil.example that re-points its name to 127.0.0.1 still sends
 * `Host: evil.example` (and its own Origin), so both headers are checked against allow-lists.
 */

export interface HostRule {
  /** Lower-case host names ("localhost") and host:port pairs ("localhost:3000"). */
  readonly hosts: ReadonlySet<string>;
  /** Exact lower-case origins, or undefined to allow http(s) origins whose host passes `hosts`. */
  readonly origins: ReadonlySet<string> | undefined;
  /** Host header values already judged: clients send the same one on every request. Bounded. */
  readonly judged: Map<string, boolean>;
}

const MAX_JUDGED = 256;

/** The hosts allowed when nothing else is configured: loopback only. */
export const DEFAULT_HOSTS: readonly string[] = ['localhost', '127.0.0.1', '[::1]'];

function list(name: string, values: unknown): string[] {
  if (!Array.isArray(values) || !values.every((v) => typeof v === 'string' && v.trim() !== '')) {
    throw new TypeError(`HTTP option dnsRebinding.${name} must be an array of non-empty strings`);
  }
  return values.map((v: string) => v.trim().toLowerCase());
}

export function hostRule(hosts: readonly string[], origins: readonly string[] | undefined): HostRule {
  return {
    hosts: new Set(list('allowedHosts', hosts)),
    origins: origins === undefined ? undefined : new Set(list('allowedOrigins', origins).map((o) => o.replace(/\/+$/, ''))),
    judged: new Map(),
  };
}

/** Splits "name[:port]" (IPv6 in brackets); undefined when the port part is not digits. */
function hostnameOf(authority: string): string | undefined {
  let end: number;
  if (authority.startsWith('[')) {
    end = authority.indexOf(']') + 1;
    if (end === 0) return undefined;
  } else {
    end = authority.indexOf(':');
    if (end < 0) return authority;
  }
  const rest = authority.slice(end);
  return rest === '' || /^:\d{1,5}$/.test(rest) ? authority.slice(0, end) : undefined;
}

function authorityAllowed(rule: HostRule, authority: string): boolean {
  if (rule.hosts.has(authority)) return true;
  const name = hostnameOf(authority);
  return name !== undefined && name !== '' && rule.hosts.has(name);
}

/** A missing Host (HTTP/1.0) is allowed: browsers, the only rebinding vector, always send one. */
export function hostAllowed(rule: HostRule, host: string | undefined): boolean {
  if (host === undefined) return true;
  let allowed = rule.judged.get(host);
  if (allowed === undefined) {
    allowed = authorityAllowed(rule, host.trim().toLowerCase());
    if (rule.judged.size >= MAX_JUDGED) rule.judged.clear(); // many distinct hosts: start over, stay bounded
    rule.judged.set(host, allowed);
  }
  return allowed;
}

/** A missing Origin is allowed (non-browser clients); "null" and other schemes are not. */
export function originAllowed(rule: HostRule, origin: string | undefined): boolean {
  if (origin === undefined) return true;
  const value = origin.trim().toLowerCase();
  if (rule.origins) return rule.origins.has(value);
  const sep = value.indexOf('://');
  if (sep < 0) return false;
  const scheme = value.slice(0, sep);
  if (scheme !== 'http' && scheme !== 'https') return false;
  const authority = value.slice(sep + 3);
  return authority !== '' && !authority.includes('/') && !authority.includes('@') && authorityAllowed(rule, authority);
}
