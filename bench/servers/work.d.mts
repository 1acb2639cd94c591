// Types for work.mjs (the TypeScript servers import it).
export declare function compute(): string;
export declare const io: () => Promise<string>;
export declare const noop: () => string;
export declare const WORK: { noop: () => string; compute: () => string; io: () => Promise<string> };
export declare const EXPECTED: { noop: string; compute: string; io: string };
export declare const result: (text: string) => { content: { type: 'text'; text: string }[] };
