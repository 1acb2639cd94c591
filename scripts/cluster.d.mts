// Types of scripts/cluster.mjs, for the TypeScript tests and benchmarks that start clusters.
import type { ChildProcess } from 'node:child_process';

export declare function freePort(): Promise<number>;
export declare const MATH_MEMBER: string;
export declare function missingBinaries(): string[];

export interface Redis {
  url: string;
  stop(): Promise<void>;
  /** Absent with REDIS_URL (a server we do not own). */
  restart?(): Promise<void>;
}
export declare function startRedis(): Promise<Redis>;

export interface Member {
  url: string;
  pid: number;
  child: ChildProcess;
  stop(): Promise<void>;
  /** SIGKILL, as a crash: no cleanup on the member's side. */
  kill(): Promise<void>;
}
export declare function startMember(script: string, env: Record<string, string>): Promise<Member>;

export interface Balancer {
  url: string;
  stop(): Promise<void>;
}
export declare function startNginx(upstreams: string[]): Promise<Balancer>;

export interface Cluster {
  url: string;
  redis: Redis;
  members: Member[];
  balancer: Balancer;
  stop(): Promise<void>;
}
export declare function startCluster(options?: { instances?: number; script?: string; env?: Record<string, string> }): Promise<Cluster>;
