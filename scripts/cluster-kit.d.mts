// Types for cluster-kit.mjs (the TypeScript cluster tests import it).
import type { ChildProcess } from 'node:child_process';

export declare const freePort: () => Promise<number>;
export declare function findBinary(name: string): string | undefined;
export declare function missingClusterBinaries(): string[];
export declare function waitFor(child: ChildProcess, pattern: RegExp, what: string, ms?: number): Promise<RegExpMatchArray>;
export interface Redis { url: string; readonly pid: number | undefined; stop(): Promise<void>; restart?(): Promise<void> }
export declare function startRedis(options?: { wrap?: string[] }): Promise<Redis>;
export interface Balancer { url: string; port: number; pid: number | undefined; stop(): Promise<void> }
export declare function startNginx(upstreams: string[], options?: { wrap?: string[]; workerConnections?: number; upstreamKeepalive?: number }): Promise<Balancer>;
