/** A tools/call that must answer within a budget; past it the child is killed and the call reports a hang. */
import { type ChildProcess, fork } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';

export interface Caller {
  /** The JSON-RPC reply, or 'hang' when none came within the budget. `args` is the arguments' JSON text. */
  call(input: Record<string, unknown>, args: string): Promise<any>;
  close(): void;
}

export function toolCaller(budgetMs: number): Caller {
  let child: Promise<ChildProcess> | undefined;
  // The budget starts once the child has loaded the framework: it is for the call, not the start-up.
  const start = async (): Promise<ChildProcess> => {
    const c = fork(fileURLToPath(new URL('./call-worker.ts', import.meta.url)), { execArgv: ['--import', 'tsx'] });
    await once(c, 'message');
    return c;
  };
  return {
    async call(input, args) {
      const current = await (child ??= start());
      return new Promise((resolve) => {
        const timer = setTimeout(() => {
          current.off('message', onReply);
          current.kill('SIGKILL');
          child = undefined;
          resolve('hang');
        }, budgetMs);
        const onReply = (reply: unknown): void => {
          clearTimeout(timer);
          resolve(reply);
        };
        current.once('message', onReply);
        current.send({ input, args });
      });
    },
    close() {
      void child?.then((c) => c.kill('SIGKILL'));
    },
  };
}
