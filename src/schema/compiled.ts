/** What a schema becomes at registration, whichever library wrote it: a JSON Schema and a validator. */
import type { JsonObject } from '../protocol/jsonrpc.js';

export type Validation<T = unknown> = { ok: true; value: T } | { ok: false; message: string };

export interface CompiledSchema {
  readonly jsonSchema: JsonObject;
  /** Sync where the library is sync; a Promise only for async schemas. */
  validate(value: unknown): Validation | Promise<Validation>;
}
