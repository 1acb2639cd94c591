/**
 * The TypeScript type a raw JSON Schema describes, for handler arguments and results. Tools take their
 * schema as a `const` type parameter, so a schema written inline is read literally without `as const`.
 * Covers what tool schemas use: type (one or a list), properties and required, additionalProperties
 * false, items, enum, const, anyOf and oneOf. Anything else, or a schema whose type is not known at
 * compile time (a `JsonSchema` variable), gives `unknown`; nesting stops being typed past 8 levels.
 * `Open`: objects that allow additional properties get an index signature. Results are typed closed:
 * an index signature there would swallow the contextual type of a returned `CallToolResult`.
 */
export type FromJsonSchema<S, Open extends boolean = true> = Infer<S, [], Open>;

type Depth = unknown[];
type Deeper<D extends Depth> = [...D, unknown];

type Infer<S, D extends Depth, Open extends boolean> = D['length'] extends 8
  ? unknown
  : S extends { readonly const: infer C }
    ? C
    : S extends { readonly enum: readonly (infer E)[] }
      ? E
      : S extends { readonly anyOf: readonly (infer A)[] }
        ? Infer<A, Deeper<D>, Open>
        : S extends { readonly oneOf: readonly (infer A)[] }
          ? Infer<A, Deeper<D>, Open>
          : S extends { readonly type: infer T }
            ? ByType<S, T extends readonly (infer Each)[] ? Each : T, D, Open>
            : unknown;

type ByType<S, T, D extends Depth, Open extends boolean> = T extends 'string'
  ? string
  : T extends 'number' | 'integer'
    ? number
    : T extends 'boolean'
      ? boolean
      : T extends 'null'
        ? null
        : T extends 'array'
          ? S extends { readonly items: infer I }
            ? Infer<I, Deeper<D>, Open>[]
            : unknown[]
          : T extends 'object'
            ? ObjectOf<S, D, Open>
            : unknown;

type ObjectOf<S, D extends Depth, Open extends boolean> = Flatten<
  (S extends { readonly properties: infer P }
    ? { -readonly [K in RequiredKeys<S, P>]: Infer<P[K], Deeper<D>, Open> } & { -readonly [K in Exclude<keyof P, RequiredKeys<S, P>>]?: Infer<P[K], Deeper<D>, Open> }
    : unknown) &
    (Open extends false ? unknown : S extends { readonly additionalProperties: false } ? unknown : Record<string, unknown>)
>;

type RequiredKeys<S, P> = S extends { readonly required: readonly (infer R)[] } ? Extract<keyof P, R> : never;

type Flatten<O> = { [K in keyof O]: O[K] } & {};
