/**
 * A mounted child's event types, served by the parent as `<name>_<type>`. The child keeps them: its
 * log, cursors, `matches`, push wake-ups and emits are the child's (src/events/service.ts delegates
 * through an EventTypeSource); the parent only renames them and applies the child's visibility.
 * Webhook delivery is not carried (the child's subscription records are its own): a mounted type
 * offers poll and push.
 */
import type { EventType } from '../events/event-type.js';
import type { Backing, EventService, EventTypeSource } from '../events/service.js';
import type { Naming } from './naming.js';

type Type = EventType<unknown>;

function renamed(own: Type, name: string, child: EventService<unknown>): Type {
  const delivery = own.delivery.filter((mode) => mode !== 'webhook');
  return {
    ...own, name, delivery, descriptor: { ...own.descriptor, name, delivery: [...delivery] },
    scopes: undefined, visible: (caller) => child.mayUse(own, caller),
  };
}

/** The child's types under the namespace, renamed once each (the same object while the child keeps the type). */
export function mountedEvents(child: EventService<unknown>, naming: Naming): EventTypeSource<unknown> {
  const published = new WeakMap<Type, Type>();
  const owners = new WeakMap<Type, Backing<unknown>>();
  const publish = (own: Type): Type => {
    let type = published.get(own);
    if (type === undefined) {
      type = renamed(own, naming.name(own.name), child);
      published.set(own, type);
      owners.set(type, { service: child, type: own });
    }
    return type;
  };
  return {
    types: () => child.types().filter((own) => own.delivery.some((mode) => mode !== 'webhook')).map(publish),
    backing: (type) => owners.get(type),
  };
}
