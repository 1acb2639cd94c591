/**
 * The over-limit body (lingering close). Answering 413 and closing while the client is still
 * uploading makes the kernel reset the connection, and the client usually loses the answer (it sees
 * EPIPE or ECONNRESET instead). So after the limit the adapters keep reading and dropping the rest of
 * the body, within these bounds, and answer once it has arrived; past a bound they answer and close
 * at once.
 */
/** The most bytes read and dropped past the limit before giving up on the rest. */
export const LINGER_BYTES = 16 * 1024 * 1024;
/** The longest wait for the rest of an over-limit body. */
export const LINGER_MS = 2_000;

/** A declared Content-Length over the limit that is still worth draining (else: answer and close now). */
export const worthDraining = (declared: number, limit: number): boolean => declared - limit <= LINGER_BYTES;
