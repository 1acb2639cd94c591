/**
 * One command-line option of the soak scripts: `--name value` or `--name=value`; `fallback` when it
 * is absent or stands alone (`--attack` followed by another flag or nothing).
 */
export function option(args, name, fallback) {
  const inline = args.find((a) => a.startsWith(`--${name}=`));
  if (inline !== undefined) return inline.slice(name.length + 3);
  const i = args.indexOf(`--${name}`);
  const next = i >= 0 ? args[i + 1] : undefined;
  return next !== undefined && !next.startsWith('--') ? next : fallback;
}
