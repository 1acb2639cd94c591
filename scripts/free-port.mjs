// A free TCP port on 127.0.0.1, for the script-run servers (conformance fixture, runtime servers).
import { createServer } from 'node:net';

export const freePort = () => new Promise((res, rej) => {
  const srv = createServer().once('error', rej);
  srv.listen(0, '127.0.0.1', () => { const { port } = srv.address(); srv.close(() => res(port)); });
});
