/** The MIME type a skill file is served with, by its extension; unknown ones by their content (text or bytes). */
const BY_EXTENSION: Record<string, string> = {
  md: 'text/markdown', markdown: 'text/markdown', txt: 'text/plain', html: 'text/html', htm: 'text/html', css: 'text/css',
  csv: 'text/csv', tsv: 'text/tab-separated-values', xml: 'application/xml', json: 'application/json', yaml: 'application/yaml',
  yml: 'application/yaml', toml: 'application/toml', js: 'text/javascript', mjs: 'text/javascript', cjs: 'text/javascript',
  ts: 'text/x-typescript', py: 'text/x-python', rb: 'text/x-ruby', go: 'text/x-go', rs: 'text/x-rust', java: 'text/x-java',
  sh: 'application/x-sh', bash: 'application/x-sh', sql: 'application/sql', svg: 'image/svg+xml', png: 'image/png',
  jpg: 'image/jpeg', jpeg: 'image/jpeg', gif: 'image/gif', webp: 'image/webp', ico: 'image/x-icon', pdf: 'application/pdf',
  zip: 'application/zip', gz: 'application/gzip', wasm: 'application/wasm', mp3: 'audio/mpeg', wav: 'audio/wav',
};

/** MIME types served as text (when the bytes are valid UTF-8): everything else goes as a base64 blob. */
const TEXTUAL = /^(text\/|application\/(json|xml|yaml|toml|x-sh|sql|javascript)|image\/svg\+xml)/;

/** The MIME type a file's extension names, if it is one we know. */
export function knownMimeType(path: string): string | undefined {
  const dot = path.lastIndexOf('.');
  return dot > path.lastIndexOf('/') ? BY_EXTENSION[path.slice(dot + 1).toLowerCase()] : undefined;
}

export function mimeTypeOf(path: string, isText: boolean): string {
  return knownMimeType(path) ?? (isText ? 'text/plain' : 'application/octet-stream');
}

export const servedAsText = (mimeType: string): boolean => TEXTUAL.test(mimeType);
