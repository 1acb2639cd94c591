#!/usr/bin/env node
/**
 * The code blocks in README.md and docs/*.md compile: every ```ts / ```typescript / ```js block is
 * type-checked against the package's own types, all in one TypeScript program (in memory, no files
 * written), and every `npm run X` / `npm start` / `npm test` the docs name is a script in package.json.
 * Run by test/unit/doc-snippets.test.ts (so by `npm test`); `node scripts/doc-snippets.mjs` prints the same.
 *
 * What a snippet may lean on, in an HTML comment on the line(s) just before its fence (invisible on a
 * rendered page):
 *   <!-- snippet-context
 *   import { MiniMCP } from 'minimcp';
 *   declare const mcp: MiniMCP;        // what the surrounding prose already established
 *   -->
 *     The comment's code is compiled in front of the block (errors in it are reported on the comment).
 *     A line `// @file ../src/server.ts` starts another file next to the snippet (for a relative import).
 *   <!-- fragment: why this block cannot compile -->
 *     The block is not compiled. The reason is required: a fragment without one is an error.
 * Each block is its own ES module (top-level await allowed); blocks in other languages are not code.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { basename, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

const repoRoot = resolve(fileURLToPath(import.meta.url), '../..');
const EXTENSION = { ts: '.ts', typescript: '.ts', js: '.js', javascript: '.js', mjs: '.js' };

/** README.md and docs/*.md: the files whose snippets must compile. */
export function documentationFiles(root = repoRoot) {
  const docs = readdirSync(join(root, 'docs')).filter((name) => name.endsWith('.md'));
  return [join(root, 'README.md'), ...docs.sort().map((name) => join(root, 'docs', name))];
}

/** The marker comment that ends on line `index - 1` (blank lines between it and the fence allowed). */
function markerBefore(lines, index) {
  let end = index - 1;
  while (end >= 0 && lines[end].trim() === '') end--;
  if (end < 0 || !lines[end].trimEnd().endsWith('-->')) return undefined;
  let start = end;
  while (start >= 0 && !lines[start].includes('<!--')) start--;
  if (start < 0) return undefined;
  const text = lines.slice(start, end + 1).join('\n');
  const body = text.slice(text.indexOf('<!--') + 4, text.lastIndexOf('-->'));
  const fragment = /^\s*fragment\b:?([\s\S]*)$/.exec(body);
  if (fragment) return { kind: 'fragment', reason: fragment[1].trim(), line: start + 1 };
  const context = /^\s*snippet-context\b[^\n]*\n?([\s\S]*)$/.exec(body);
  if (context) return { kind: 'context', code: context[1].replace(/\s+$/, ''), line: start + 2 };
  return undefined;
}

/**
 * The code blocks of one markdown file: { file, line (of the fence), lang, code, ext, fragment?, context? }.
 * `ext` is undefined for blocks that are not code (bash, json, yaml, text).
 */
export function extractSnippets(markdownPath) {
  const lines = readFileSync(markdownPath, 'utf8').split('\n');
  const blocks = [];
  for (let i = 0; i < lines.length; i++) {
    const open = /^(\s*)(`{3,}|~{3,})\s*([\w+-]*)/.exec(lines[i]);
    if (!open) continue;
    const [, indent, fence, lang] = open;
    let close = i + 1;
    while (close < lines.length && !(lines[close].trim().startsWith(fence) && lines[close].trim().replace(/[`~]/g, '') === '')) close++;
    const code = lines
      .slice(i + 1, close)
      .map((line) => (line.startsWith(indent) ? line.slice(indent.length) : line))
      .join('\n');
    const marker = markerBefore(lines, i);
    blocks.push({ file: markdownPath, line: i + 1, lang: lang.toLowerCase(), code, ext: EXTENSION[lang.toLowerCase()], marker });
    i = close;
  }
  return blocks;
}

/** The repository's compiler options, with the settings a snippet file needs on top. */
function compilerOptions(root) {
  const configPath = join(root, 'tsconfig.json');
  const { config } = ts.readConfigFile(configPath, ts.sys.readFile);
  const { options } = ts.parseJsonConfigFileContent(config, ts.sys, root, undefined, configPath);
  // Deno imports the package as `npm:minimcp/...`: the same types.
  const paths = { ...options.paths };
  for (const [name, target] of Object.entries(options.paths ?? {})) paths[`npm:${name}`] = target;
  return { ...options, paths, noEmit: true, allowJs: true, checkJs: true, moduleDetection: ts.ModuleDetectionKind.Force };
}

/** A folder per snippet, `<root>/.doc-snippets/docs_http.md.L14/main/` (never on disk); its `..` is its own too. */
function virtualFolder(root, block) {
  return join(root, '.doc-snippets', `${relative(root, block.file).replaceAll('/', '_')}.L${block.line}`, 'main');
}

/** The snippet-context's code, split into what goes in front of the block and the files it names. */
export function splitContext(code) {
  const [front, ...files] = code.split(/^\/\/ @file (\S+)\n/m);
  const extra = [];
  for (let i = 0; i < files.length; i += 2) extra.push({ name: files[i], text: files[i + 1] });
  return { front: front.replace(/\s+$/, ''), extra };
}

/** Type-checks the code blocks of `markdownFiles` in one program; returns { problems, checked, fragments }. */
export function checkSnippets(markdownFiles = documentationFiles(), root = repoRoot) {
  const problems = [];
  const fragments = [];
  const sources = new Map(); // virtual path -> { block, text, contextLines }
  for (const block of markdownFiles.flatMap(extractSnippets)) {
    if (!block.ext) continue;
    const where = `${relative(root, block.file)}:${block.line}`;
    if (block.marker?.kind === 'fragment') {
      if (block.marker.reason) fragments.push({ where, reason: block.marker.reason });
      else problems.push(`${where}: a fragment needs a reason: <!-- fragment: why it cannot compile -->`);
      continue;
    }
    const { front: context, extra } = splitContext(block.marker?.kind === 'context' ? block.marker.code : '');
    const text = context ? `${context}\n${block.code}\n` : `${block.code}\n`;
    const folder = virtualFolder(root, block);
    sources.set(join(folder, `snippet${block.ext}`), { block, text, contextLines: context ? context.split('\n').length : 0 });
    for (const { name, text } of extra) sources.set(resolve(folder, name), { block, text, contextLines: Number.POSITIVE_INFINITY });
  }
  const options = compilerOptions(root);
  const host = ts.createCompilerHost(options, true);
  const { getSourceFile, fileExists, readFile, directoryExists } = host;
  const virtualRoot = join(root, '.doc-snippets');
  host.directoryExists = (path) => path.startsWith(virtualRoot) || (directoryExists?.call(host, path) ?? true);
  host.fileExists = (path) => sources.has(path) || fileExists.call(host, path);
  host.readFile = (path) => sources.get(path)?.text ?? readFile.call(host, path);
  host.getSourceFile = (path, language, ...rest) => {
    const source = sources.get(path);
    return source ? ts.createSourceFile(path, source.text, language, true) : getSourceFile.call(host, path, language, ...rest);
  };
  const program = ts.createProgram([...sources.keys()], options, host);
  for (const [path, { block, contextLines }] of sources) {
    const file = program.getSourceFile(path);
    for (const diagnostic of [...program.getSyntacticDiagnostics(file), ...program.getSemanticDiagnostics(file)]) {
      const { line } = file.getLineAndCharacterOfPosition(diagnostic.start ?? 0);
      const mdLine = line < contextLines ? block.marker.line + Math.min(line, block.marker.code.split('\n').length) : block.line + 1 + line - contextLines;
      const message = ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n').split('\n')[0];
      problems.push(`${relative(root, block.file)}:${mdLine}: TS${diagnostic.code} ${message}${line < contextLines ? ' (in its snippet-context)' : ''}`);
    }
  }
  return { problems, checked: new Set([...sources.values()].map(({ block }) => block)).size, fragments };
}

/** Every `npm run X` (and `npm start` / `npm test`) the files name that package.json does not define. */
export function missingScripts(markdownFiles = documentationFiles(), root = repoRoot) {
  const scripts = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).scripts ?? {};
  const missing = [];
  for (const file of markdownFiles) {
    readFileSync(file, 'utf8')
      .split('\n')
      .forEach((text, index) => {
        for (const match of text.matchAll(/\bnpm (?:run(?:-script)?(?:\s+(?:-s|--silent))?\s+([\w:.-]+)|(start|test)\b)/g)) {
          const name = match[1] ?? match[2];
          if (!(name in scripts)) missing.push(`${relative(root, file)}:${index + 1}: "${match[0]}" is not a script in package.json`);
        }
      });
  }
  return missing;
}

if (process.argv[1] && basename(process.argv[1]) === basename(fileURLToPath(import.meta.url))) {
  const { problems, checked, fragments } = checkSnippets();
  problems.push(...missingScripts());
  for (const { where, reason } of fragments) console.log(`fragment ${where}: ${reason}`);
  if (problems.length) {
    console.error(`Documentation snippets that do not hold:\n  ${problems.join('\n  ')}`);
    process.exit(1);
  }
  console.log(`${checked} snippets type-check; ${fragments.length} fragments; every npm script named exists.`);
}
