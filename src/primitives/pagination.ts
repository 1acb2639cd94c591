/** Opaque cursors for the list methods: an offset, wrapped so clients cannot mistake it for data. */
import { invalidParams } from '../protocol/errors.js';

const PREFIX = 'mm1:';

const encode = (offset: number): string => btoa(`${PREFIX}${offset}`).replace(/=+$/, '');

function decode(cursor: unknown): number | undefined {
  if (typeof cursor !== 'string' || cursor.length > 32) return undefined;
  let text: string;
  try {
    text = atob(cursor);
  } catch {
    return undefined;
  }
  if (!text.startsWith(PREFIX)) return undefined;
  const digits = text.slice(PREFIX.length);
  if (!/^(0|[1-9]\d{0,8})$/.test(digits)) return undefined;
  return Number(digits);
}

/** One page of `items` starting at the cursor; an invalid cursor is -32602. */
export function paginate<T>(items: readonly T[], cursor: unknown, pageSize: number): { page: T[]; nextCursor?: string } {
  let start = 0;
  if (cursor !== undefined) {
    const offset = decode(cursor);
    if (offset === undefined || offset > items.length) throw invalidParams('Invalid cursor');
    start = offset;
  }
  const end = start + pageSize;
  const page = items.slice(start, end);
  return end < items.length ? { page, nextCursor: encode(end) } : { page };
}
