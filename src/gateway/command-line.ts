/**
 * A command line as the CLI and `{ stdio: "…" }` take it, split into a program and its arguments the
 * way a POSIX shell splits words (single and double quotes, backslash escapes) — and nothing more: no
 * variables, globs or pipes, because no shell runs it.
 */
export function splitCommandLine(line: string): string[] {
  const words: string[] = [];
  let word = '';
  let quote: "'" | '"' | undefined;
  let started = false;
  for (let i = 0; i < line.length; i++) {
    const c = line[i] as string;
    if (quote === "'") {
      if (c === "'") quote = undefined;
      else word += c;
    } else if (c === '\\' && i + 1 < line.length && (quote === undefined || '"\\$`'.includes(line[i + 1] as string))) {
      word += line[++i];
      started = true;
    } else if (quote === '"') {
      if (c === '"') quote = undefined;
      else word += c;
    } else if (c === "'" || c === '"') {
      quote = c;
      started = true;
    } else if (/\s/.test(c)) {
      if (started) words.push(word);
      word = '';
      started = false;
    } else {
      word += c;
      started = true;
    }
  }
  if (quote !== undefined) throw new Error(`Unclosed ${quote} in the command line: ${line}`);
  if (started) words.push(word);
  return words;
}
