/**
 * Work held until the current turn of the event loop is over. Module-global on purpose: the turn
 * is the process's, so one queue and one scheduled callback serve every stream opened in it
 * (a fan-out of 64 answers in one turn schedules one callback, not 64).
 * No node: imports: the fetch handler uses it too.
 */

/** Something that waits for the end of the turn it started in. */
export interface TurnWaiter {
  turnOver(): void;
}

// Workers and browser-like hosts have no setImmediate (this module serves the fetch handler too).
const afterThisTurn: (run: () => void) => void = typeof setImmediate === 'function' ? setImmediate : (run) => setTimeout(run, 0);

let waiting: TurnWaiter[] = [];

function turnOver(): void {
  const waiters = waiting;
  waiting = [];
  for (const waiter of waiters) waiter.turnOver();
}

/** `waiter.turnOver()` runs once this turn is over. */
export function atTurnEnd(waiter: TurnWaiter): void {
  if (waiting.push(waiter) === 1) afterThisTurn(turnOver);
}
