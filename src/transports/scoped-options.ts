/**
 * The options parameter of a transport or adapter serving a `MiniMCP<Scope>`. The Scope type comes from
 * the server alone (`NoInfer` at the call sites): a scope factory is checked against it and cannot widen
 * it. When the Scope type does not allow `undefined`, the options and their `scope` are required, since
 * without them every handler would get `ctx.scope === undefined` against its type.
 */
export type ScopedOptions<Scope, Options extends { scope?: unknown }> = undefined extends Scope
  ? [options?: Options]
  : [options: Options & Required<Pick<Options, 'scope'>>];
