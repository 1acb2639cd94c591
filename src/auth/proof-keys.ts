/**
 * The public keys DPoP proofs are signed with, imported once per key and algorithm instead of once
 * per request (a key import costs about a third of a proof check). Only a key whose RFC 7638
 * thumbprint is the `cnf.jkt` of a verified token is kept, so a client cannot fill the cache with
 * keys of its own making; bounded in count (the oldest leaves first) and, through the proof length,
 * in bytes. As jose's EmbeddedJWK: the `jwk` header must be a public key.
 */
import { calculateJwkThumbprint, errors, importJWK, type CryptoKey, type JWK, type JWSHeaderParameters } from 'jose';
import { TokenRejected } from './jwt.js';

/** The members a thumbprint is made of (RFC 7638 §3.2), as one string; undefined when one is not a string. */
function membersOf(jwk: JWK): string | undefined {
  const parts = [jwk.kty, jwk.crv, jwk.x, jwk.y, jwk.n, jwk.e];
  return parts.every((part) => part === undefined || typeof part === 'string') ? parts.join('|') : undefined;
}

export class ProofKeys {
  /** Members to thumbprint, for keys that matched a token. */
  readonly #thumbprints = new Map<string, string>();
  /** `alg members` to the imported key. */
  readonly #keys = new Map<string, Promise<CryptoKey>>();

  constructor(private readonly maxKeys = 1000) {}

  /** Keys imported and kept (for tests and metrics). */
  get size(): number {
    return this.#keys.size;
  }

  /** For jwtVerify: the proof's own key, once its thumbprint is `jkt` (else the proof is refused unverified). */
  resolver(jkt: string): (header: JWSHeaderParameters) => Promise<CryptoKey> {
    return async (header) => {
      const jwk = header.jwk;
      if (typeof jwk !== 'object' || jwk === null || Array.isArray(jwk)) throw new errors.JWSInvalid('"jwk" (JSON Web Key) Header Parameter must be a JSON object');
      // RFC 9449 §4.3 item 6, checked before the cache (a private key has the same thumbprint members).
      if ('d' in jwk) throw new errors.JWSInvalid('"jwk" (JSON Web Key) Header Parameter must be a public key');
      const members = membersOf(jwk);
      const known = members === undefined ? undefined : this.#thumbprints.get(members);
      if (known !== jkt && (await calculateJwkThumbprint(jwk, 'sha256')) !== jkt) {
        throw new TokenRejected('DPoP proof: its key is not the one the token is bound to (cnf.jkt)');
      }
      if (members === undefined) return this.#import(jwk, header.alg!);
      if (known === undefined) this.#keep(this.#thumbprints, members, jkt);
      const id = `${header.alg} ${members}`;
      let key = this.#keys.get(id);
      if (key === undefined) this.#keep(this.#keys, id, (key = this.#import(jwk, header.alg!)));
      key.catch(() => this.#keys.delete(id));
      return key;
    };
  }

  async #import(jwk: JWK, alg: string): Promise<CryptoKey> {
    const key = await importJWK({ ...jwk, ext: true }, alg);
    if (key instanceof Uint8Array) throw new errors.JWSInvalid('"jwk" (JSON Web Key) Header Parameter must be an asymmetric key');
    return key;
  }

  #keep<V>(map: Map<string, V>, id: string, value: V): void {
    while (map.size >= this.maxKeys) map.delete(map.keys().next().value!);
    map.set(id, value);
  }
}
