/**
 * A key pair for the runtime suite only: the servers trust the public half (no JWKS fetch, which
 * workerd could not make to 127.0.0.1), the tests sign access tokens with the private half. It
 * protects nothing but these tests.
 */
export const RUNTIME_ISSUER = "https://issuer.runtime.test";
export const RUNTIME_RESOURCE = "https://mcp.runtime.test/auth";
export const PUBLIC_JWK = {"kty":"EC","x":"exqyae4kv9_5fuyuW5-1KZuB7pjSB9zXk694Z3Hq8uc","y":"I14RFqRDhLRmGdaNd1vlI738PYC2Je1_tOk_4mHUvCk","crv":"P-256","kid":"runtime-test","alg":"ES256","use":"sig"};
export const PRIVATE_JWK = {"kty":"EC","x":"exqyae4kv9_5fuyuW5-1KZuB7pjSB9zXk694Z3Hq8uc","y":"I14RFqRDhLRmGdaNd1vlI738PYC2Je1_tOk_4mHUvCk","crv":"P-256","d":"4seXxSPOBx-lY9zNLonA2FgIhz4KWGQHSdQfeo-iYQA","kid":"runtime-test","alg":"ES256"};
