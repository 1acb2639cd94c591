/** Argument completion for prompt arguments and resource-template variables (`completion/complete`). */
import type { MaybePromise } from '../protocol/mcp-types.js';

export interface CompletionResult {
  values: string[];
  total?: number;
  hasMore?: boolean;
}

/** Suggests values for one argument, given what was typed and the other arguments already chosen. */
export type Completer = (
  value: string,
  context: { arguments: Record<string, string> },
) => MaybePromise<string[] | CompletionResult>;

const MAX_VALUES = 100; // the spec's cap per response

/** Runs a completer and shapes its answer: at most 100 values, `hasMore` when some were cut. */
export async function complete(completer: Completer | undefined, value: string, args: Record<string, string>): Promise<CompletionResult> {
  if (!completer) return { values: [], total: 0, hasMore: false };
  const raw = await completer(value, { arguments: args });
  const result = Array.isArray(raw) ? { values: raw } : raw;
  const values = result.values.slice(0, MAX_VALUES);
  const total = result.total ?? result.values.length;
  return { values, total, hasMore: result.hasMore ?? total > values.length };
}
