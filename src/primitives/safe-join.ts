/**
 * Template variables are percent-decoded (RFC 6570): `file:///{name}` matches
 * `file:///..%2F..%2Fetc%2Fpasswd` with name = "../../etc/passwd", and `{+path}` passes "../" as is.
 * A reader that turns a variable into a file path joins it with `safeJoin`, which refuses anything
 * that could leave `root`. Pure string work (no node:path), so it runs on every runtime.
 */
const SEPARATORS = /[/\\]/;
const DRIVE = /^[A-Za-z]:/;

/**
 * `root` joined with the `/`- or `\`-separated `relative`, or undefined when `relative` is absolute,
 * names a drive, contains NUL, or has a `..` segment. Empty and `.` segments are dropped.
 */
export function safeJoin(root: string, relative: string): string | undefined {
  if (relative.includes('\u0000') || DRIVE.test(relative) || relative.startsWith('/') || relative.startsWith('\\')) return undefined;
  const kept: string[] = [];
  for (const segment of relative.split(SEPARATORS)) {
    if (segment === '..') return undefined;
    if (segment !== '' && segment !== '.') kept.push(segment);
  }
  const base = root.endsWith('/') || root.endsWith('\\') ? root.slice(0, -1) : root;
  return kept.length === 0 ? base : `${base}/${kept.join('/')}`;
}
