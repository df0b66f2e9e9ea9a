import {
  type EventFields,
  type EventName,
  eventSchemas,
  type UwfEvent,
} from "@united-workforce/protocol";
import { isoTime } from "../iso-time.js";

export type EventListener = (event: UwfEvent) => void;

/**
 * Where uwf's events go: every emitter (the engine's runs, the commands) emits here, every
 * reader in this process subscribes here (the process log, live progress, the web view). One
 * vocabulary, typed by protocol's event schemas: emitting a name or a field protocol does not
 * declare is a type error.
 */
export interface EventStream {
  /** Stamp the event with its name and the time, and hand it to every listener in order. */
  emit<N extends EventName>(name: N, fields: EventFields<N>): void;
  /** Listen from now on; the returned function stops listening. */
  subscribe(listener: EventListener): () => void;
  /**
   * The stream of a fan-out child's run: each of its events names `parent`, unless it names a
   * parent of its own (a grandchild's events name the child, not the top of the family).
   */
  forChild(parent: string): EventStream;
}

/** A stream with these listeners; more can subscribe later. */
export function createEventStream(...listeners: EventListener[]): EventStream {
  const subscribed = new Set<EventListener>(listeners);
  const publish = (event: UwfEvent): void => {
    for (const listener of subscribed) listener(event);
  };
  return streamOver(publish, (listener) => {
    subscribed.add(listener);
    return () => subscribed.delete(listener);
  });
}

function streamOver(
  publish: (event: UwfEvent) => void,
  subscribe: (listener: EventListener) => () => void,
): EventStream {
  return {
    emit(name, fields) {
      publish({ event: name, ts: isoTime(), ...fields } as unknown as UwfEvent);
    },
    subscribe,
    forChild(parent) {
      const named = (event: UwfEvent): UwfEvent =>
        "parent" in event || !namesParent(event.event) ? event : ({ ...event, parent } as UwfEvent);
      return streamOver((event) => publish(named(event)), subscribe);
    },
  };
}

/** Whether an event's schema has a `parent`: the events of a thread's run. */
function namesParent(name: EventName): boolean {
  return "parent" in eventSchemas()[name].properties;
}
