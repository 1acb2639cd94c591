/**
 * `server.listen()` as a promise, with the one failure a newcomer meets named plainly: a busy port
 * (Node says only `EADDRINUSE`). Shared by serve() and `minimcp dev`.
 */
import type { Server } from 'node:http';

export async function listenOn(server: Server, port: number, host: string, hint: string): Promise<void> {
  await new Promise<void>((ready, fail) => {
    const onError = (error: NodeJS.ErrnoException): void => fail(error.code === 'EADDRINUSE' ? portInUse(error, port, host, hint) : error);
    server.once('error', onError);
    server.listen(port, host, () => {
      server.off('error', onError);
      ready();
    });
  });
}

/** The same error (code and all), with a message that names the port and what to do. */
function portInUse(error: NodeJS.ErrnoException, port: number, host: string, hint: string): NodeJS.ErrnoException {
  error.message = `Port ${port} on ${host} is already in use (EADDRINUSE): stop what holds it, or ${hint}`;
  return error;
}
