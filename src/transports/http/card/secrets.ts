/**
 * A card is public: a header a client must send is described, never filled in. The schema allows a
 * preset `value`, so a token pasted there would validate and be published to every crawler; these
 * checks refuse that at start-up.
 */
import type { ServerCardHeader, ServerCardInput } from './options.js';

const CREDENTIAL_HEADERS = new Set(['authorization', 'proxy-authorization', 'cookie', 'x-api-key', 'api-key']);
const hasVariable = (value: string): boolean => /\{[a-zA-Z_][a-zA-Z0-9_]*\}/.test(value);

function presetSecret(input: ServerCardInput, at: string): string | undefined {
  if (input.isSecret !== true) return undefined;
  if (input.default !== undefined) return `${at} is secret but has a default: a card is public, so a secret is never in it`;
  if (input.value !== undefined && !hasVariable(input.value)) return `${at} is secret but has a literal value: write it with a {variable} (value: 'Bearer {token}')`;
  return undefined;
}

/** The first header or variable that would publish a secret, in words; undefined when none does. */
export function secretProblem(headers: readonly ServerCardHeader[] | undefined, variables: Record<string, ServerCardInput> | undefined): string | undefined {
  for (const [name, input] of Object.entries(variables ?? {})) {
    const problem = presetSecret(input, `card.variables.${name}`);
    if (problem) return problem;
  }
  for (const [i, header] of (headers ?? []).entries()) {
    const at = `card.headers[${i}]`;
    const credential = typeof header.name === 'string' && CREDENTIAL_HEADERS.has(header.name.toLowerCase());
    if (credential && typeof header.value === 'string' && !hasVariable(header.value)) {
      return `${at} (${header.name}) has a literal value: a card is public, so describe the credential with a {variable} (value: 'Bearer {token}')`;
    }
    const problem = presetSecret(header, at) ?? Object.entries(header.variables ?? {}).map(([name, v]) => presetSecret(v, `${at}.variables.${name}`)).find(Boolean);
    if (problem) return problem;
  }
  return undefined;
}
