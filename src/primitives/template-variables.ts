/**
 * The variables of an RFC 6570 URI template, typed from the template's text (as routers type path
 * params): `{id}` is a string, `{list*}` a string[]. A variable that expansion may leave out is
 * optional: those of `{?q}`, `{&q}`, `{;p}`, `{#f}`, `{.x}`, `{/p}` and all but the first of a list.
 * A template that is not a literal type gives the untyped record.
 */
export type TemplateVariables<T extends string> = string extends T ? Record<string, string | string[]> : Flatten<VariablesOf<T>>;

/** The variable names of a template, for options keyed by variable (`complete`). */
export type TemplateVariableName<T extends string> = string extends T ? string : keyof VariablesOf<T> & string;

type Flatten<O> = { [K in keyof O]: O[K] } & {};

type VariablesOf<T extends string> = T extends `${string}{${infer Expression}}${infer Rest}` ? ExpressionVariables<Expression> & VariablesOf<Rest> : {};

type Prefixed = '#' | '.' | '/' | ';' | '?' | '&';
type ExpressionVariables<E extends string> = E extends `${Prefixed}${infer List}`
  ? ListVariables<List, false>
  : E extends `+${infer List}`
    ? ListVariables<List, true>
    : ListVariables<E, true>;

type ListVariables<L extends string, FirstRequired extends boolean> = L extends `${infer Spec},${infer Rest}`
  ? Variable<Spec, FirstRequired> & ListVariables<Rest, false>
  : Variable<L, FirstRequired>;

type Variable<Spec extends string, Required extends boolean> = Required extends true
  ? { [K in NameOf<Spec>]: ValueOf<Spec> }
  : { [K in NameOf<Spec>]?: ValueOf<Spec> };

type NameOf<Spec extends string> = Spec extends `${infer Name}*` ? Name : Spec extends `${infer Name}:${string}` ? Name : Spec;
type ValueOf<Spec extends string> = Spec extends `${string}*` ? string[] : string;
