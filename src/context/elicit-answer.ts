/**
 * An accepted elicitation answer is client input like any other: it is checked against the
 * `requestedSchema` the server sent (2025 and 2026 alike) before the handler sees it. A mismatch
 * rejects `ctx.elicit()` with -32602, so `"rm -rf /"` never arrives as an answer to an enum of
 * approve/deny.
 */
import { ErrorCode, McpError } from '../protocol/errors.js';
import type { Validation } from '../schema/compiled.js';
import { compileJsonSchema } from '../schema/json-schema.js';
import type { ElicitParams, ElicitResult } from '../protocol/mcp-types.js';

export function checkedAnswer(params: ElicitParams, answer: ElicitResult): ElicitResult | Promise<ElicitResult> {
  const schema = params.requestedSchema;
  if (answer.action !== 'accept' || params.mode === 'url' || typeof schema !== 'object' || schema === null) return answer;
  const checked = compileJsonSchema(schema).validate(answer.content ?? {});
  return checked instanceof Promise ? checked.then((v) => verdict(v, answer)) : verdict(checked, answer);
}

function verdict(checked: Validation, answer: ElicitResult): ElicitResult {
  if (!checked.ok) throw new McpError(ErrorCode.InvalidParams, `The elicitation answer does not match the requested schema: ${checked.message}`);
  return answer;
}
