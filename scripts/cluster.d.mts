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

export interface ClusterOptions { instances?: number; script?: string; env?: Record<string, string> }
/** Redis and the members, no balancer. */
export interface Members {
  redis: Redis;
  members: Member[];
  stop(): Promise<void>;
}
export interface Cluster extends Members {
  url: string;
  balancer: Balancer;
}
export declare function startMembers(options?: ClusterOptions): Promise<Members>;
export declare function startCluster(options?: ClusterOptions): Promise<Cluster>;
