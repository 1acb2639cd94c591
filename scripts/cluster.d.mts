// Types of scripts/cluster.mjs, for the TypeScript tests and scripts that start clusters.
import type { ChildProcess } from 'node:child_process';
import type { Balancer, Redis } from './cluster-kit.mjs';

export { freePort, missingClusterBinaries, startNginx, startRedis, type Balancer, type Redis } from './cluster-kit.mjs';
export declare const MATH_MEMBER: string;

export interface Member {
  url: string;
  pid: number;
  child: ChildProcess;
  stop(): Promise<void>;
  /** SIGKILL, as a crash: no cleanup on the member's side. */
  kill(): Promise<void>;
}
export declare function startMember(script: string, env: Record<string, string>): Promise<Member>;

export interface Cluster {
  url: string;
  redis: Redis;
  members: Member[];
  balancer: Balancer;
  stop(): Promise<void>;
}
export declare function startCluster(options?: { instances?: number; script?: string; env?: Record<string, string> }): Promise<Cluster>;
