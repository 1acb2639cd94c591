/**
 * How an attached server's names appear: with a namespace, tools and prompts are `<name>_<original>`
 * and resource URIs and templates `<name>+<original>` (the namespace joins the URI scheme, which
 * allows `+`: `docs+file:///a` is `file:///a` of `docs`). Both are reversible by cutting the prefix.
 */
const NAMESPACE = /^[A-Za-z][A-Za-z0-9-]{0,63}$/;

export class Naming {
  readonly #name: string;
  readonly #uri: string;

  constructor(readonly namespace: string | undefined) {
    if (namespace !== undefined && !NAMESPACE.test(namespace)) {
      throw new Error(`Invalid namespace ${JSON.stringify(namespace)}: a letter, then up to 63 letters, digits or '-'`);
    }
    this.#name = namespace === undefined ? '' : `${namespace}_`;
    this.#uri = namespace === undefined ? '' : `${namespace}+`;
  }

  name(original: string): string {
    return this.#name + original;
  }

  uri(original: string): string {
    return this.#uri + original;
  }

  /** The upstream's URI for one the gateway published; undefined when it is not of this namespace. */
  originalUri(published: string): string | undefined {
    return published.startsWith(this.#uri) ? published.slice(this.#uri.length) : undefined;
  }

  /** A read result with each content's URI in this namespace (the caller reads `<name>+<uri>` and sees that URI back). */
  contents<R extends { contents?: unknown }>(result: R): R {
    if (this.#uri === '' || !Array.isArray(result.contents)) return result;
    const contents = result.contents.map((c: unknown) =>
      typeof c === 'object' && c !== null && typeof (c as { uri?: unknown }).uri === 'string' ? { ...c, uri: this.uri((c as { uri: string }).uri) } : c);
    return { ...result, contents };
  }
}
