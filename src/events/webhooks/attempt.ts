/**
 * One delivery attempt and what follows from its answer: 2xx done; 410 and 413 done without retry
 * (reported); anything else retried with exponential backoff until the attempts or the window run
 * out (reported). Every attempt is signed afresh (a new timestamp), and every outcome counts toward
 * the subscription's health, except a 410, which is the receiver's choice, not a failure.
 */
import { validateCallbackUrl } from './egress.js';
import type { FailureCategory } from './errors.js';
import { post, type PostOptions, statusCategory } from './post.js';
import { signedHeaders } from './sign.js';
import type { DeliveryStore, Job, SuspensionPolicy } from './store.js';
import type { Clock, DeliveryGiveUp } from './types.js';

export interface Attempts {
  store: DeliveryStore;
  post: PostOptions;
  clock: Clock;
  dedupMs: number;
  retry: { attempts: number; firstDelayMs: number; factor: number; windowMs: number };
  suspension: SuspensionPolicy | false;
  onGiveUp: (giveUp: DeliveryGiveUp) => void;
  onSuspended: (subscriptionId: string) => void;
  /** A retry of this instance's is due at `at`: the pump wakes then (other instances find it by polling). */
  wakeAt: (at: number) => void;
  log: (message: string) => void;
}

export async function attemptDelivery(context: Attempts, job: Job, signal: AbortSignal): Promise<void> {
  const { target } = job;
  let url: URL;
  let headers: Record<string, string>;
  try {
    url = validateCallbackUrl(target.url, context.post.policy); // again at each attempt: the policy may have changed since the subscribe
    headers = signedHeaders(target.subscriptionId, job.webhookId, job.body, target.secrets, context.clock.now());
  } catch {
    return settle(context, job, 'connection_refused', 'connection_refused'); // nothing was sent; nothing will be
  }
  // Only the status of a delivery matters: its answer is not read (a slow body cannot hold the slot).
  const result = await post(url, headers, job.body, { ...context.post, maxResponseBytes: 0, signal });
  if (signal.aborted) return; // the engine closed: the job stays claimed and goes to another instance after its lease
  if ('failed' in result) return settle(context, job, result.failed);
  if (result.status >= 200 && result.status <= 299) return settle(context, job, null);
  if (result.status === 410) return giveUp(context, job, 'gone');
  return settle(context, job, statusCategory(result.status), result.status === 413 ? 'too_large' : undefined);
}

/** Records the outcome, then finishes, retries or gives up (`final`: no retry, for this reason). */
async function settle(context: Attempts, job: Job, failure: FailureCategory | null, final?: DeliveryGiveUp['reason']): Promise<void> {
  const { store, clock } = context;
  const now = clock.now();
  try {
    if (await store.record(job.target.subscriptionId, now, failure, context.suspension)) context.onSuspended(job.target.subscriptionId);
    if (failure === null) return await store.finish(job, context.dedupMs);
    if (final !== undefined) return await giveUp(context, job, final);
    job.attempts++;
    const { attempts, firstDelayMs, factor, windowMs } = context.retry;
    const at = now + firstDelayMs * factor ** (job.attempts - 1);
    if (job.attempts >= attempts || at > job.since + windowMs) return await giveUp(context, job, failure);
    await store.retry(job, at);
    context.wakeAt(at);
  } catch (error) {
    context.log(`webhook store unavailable: ${error instanceof Error ? error.message : String(error)}`); // the lease runs out; it is tried again
  }
}

async function giveUp(context: Attempts, job: Job, reason: DeliveryGiveUp['reason']): Promise<void> {
  await context.store.finish(job, context.dedupMs);
  try {
    context.onGiveUp({ target: job.target, webhookId: job.webhookId, reason });
  } catch (error) {
    context.log(`onGiveUp threw: ${error instanceof Error ? error.message : String(error)}`);
  }
}
