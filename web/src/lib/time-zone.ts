// Times in the browser's zone or in UTC (the zone servers log in), chosen once and remembered in
// this browser; pages that show times re-render when it changes.
import { useEffect, useState } from 'react';

export type TimeZoneChoice = 'local' | 'utc';

const KEY = 'jtrace.timeZone';
let choice: TimeZoneChoice = readChoice();
const listeners = new Set<() => void>();

function readChoice(): TimeZoneChoice {
  try {
    return localStorage.getItem(KEY) === 'utc' ? 'utc' : 'local';
  } catch {
    return 'local';
  }
}

export function timeZoneChoice(): TimeZoneChoice {
  return choice;
}

export function setTimeZoneChoice(next: TimeZoneChoice): void {
  choice = next;
  try {
    localStorage.setItem(KEY, next);
  } catch {
    // A browser that refuses storage keeps the choice for this page only.
  }
  for (const listener of listeners) listener();
}

export function useTimeZone(): TimeZoneChoice {
  const [zone, setZone] = useState(choice);
  useEffect(() => {
    const listener = () => setZone(choice);
    listeners.add(listener);
    return () => {
      listeners.delete(listener);
    };
  }, []);
  return zone;
}

const formats = new Map<string, Intl.DateTimeFormat>();
function format(precise: boolean): Intl.DateTimeFormat {
  const key = `${choice} ${precise}`;
  let found = formats.get(key);
  if (!found) {
    found = new Intl.DateTimeFormat(undefined, {
      year: 'numeric',
      month: 'short',
      day: 'numeric',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
      ...(precise ? { fractionalSecondDigits: 3 } : {}),
      ...(choice === 'utc' ? { timeZone: 'UTC', hourCycle: 'h23' } : {}),
    });
    formats.set(key, found);
  }
  return found;
}

/** A date and time to the second in the chosen zone ("UTC" said when it is UTC). */
export function zonedTime(iso: string, precise = false): string {
  return format(precise).format(new Date(iso)) + (choice === 'utc' ? ' UTC' : '');
}
