// The worker module of scripts/security/attack-server.ts: busy for `ms` milliseconds.
export default function busy({ ms }) {
  const end = Date.now() + ms;
  let n = 0;
  while (Date.now() < end) n++;
  return n;
}
