/** Content-Type and Accept checks (RFC 9110 §8.3 and §12.5.1), written for the hot path. */

/** `application/json`, any case, parameters (charset...) allowed. */
export function isJsonContentType(value: string | undefined): boolean {
  if (value === undefined) return false;
  if (value === 'application/json') return true;
  const semi = value.indexOf(';');
  return (semi < 0 ? value : value.slice(0, semi)).trim().toLowerCase() === 'application/json';
}

/** Bits of what the client accepts. */
export const ACCEPTS_JSON = 1;
export const ACCEPTS_SSE = 2;

/** The quality of a media range's `q` parameter (1 when absent, 0 when malformed). */
function qualityOf(params: string[]): number {
  for (let i = 1; i < params.length; i++) {
    const p = params[i]!.trim();
    if (p.length > 1 && (p[0] === 'q' || p[0] === 'Q') && p[1] === '=') {
      const q = Number(p.slice(2));
      return Number.isFinite(q) && q >= 0 && q <= 1 ? q : 0;
    }
  }
  return 1;
}

/**
 * Which of JSON and SSE the Accept header allows: the most specific matching range decides
 * (exact > type/* > *\/*), and q=0 means "not acceptable". A missing or empty header means *\/*.
 */
function negotiate(header: string): number {
  // [specificity, quality] of the best match so far, per type.
  let jsonRank = 0, jsonQ = 0, sseRank = 0, sseQ = 0;
  for (const range of header.split(',')) {
    const params = range.split(';');
    const type = params[0]!.trim().toLowerCase();
    if (type === '') continue;
    const q = qualityOf(params);
    let json = 0, sse = 0;
    if (type === '*/*') json = sse = 1;
    else if (type === 'application/*') json = 2;
    else if (type === 'text/*') sse = 2;
    else if (type === 'application/json') json = 3;
    else if (type === 'text/event-stream') sse = 3;
    if (json > jsonRank || (json === jsonRank && json > 0 && q > jsonQ)) (jsonRank = json), (jsonQ = q);
    if (sse > sseRank || (sse === sseRank && sse > 0 && q > sseQ)) (sseRank = sse), (sseQ = q);
  }
  return (jsonQ > 0 ? ACCEPTS_JSON : 0) | (sseQ > 0 ? ACCEPTS_SSE : 0);
}

// Clients send the same header on every request: remember the last answer.
let lastHeader = 'application/json, text/event-stream';
let lastResult = ACCEPTS_JSON | ACCEPTS_SSE;

export function acceptedTypes(header: string | undefined): number {
  if (header === undefined || header.trim() === '') return ACCEPTS_JSON | ACCEPTS_SSE;
  if (header !== lastHeader) {
    lastResult = negotiate(header);
    lastHeader = header;
  }
  return lastResult;
}
