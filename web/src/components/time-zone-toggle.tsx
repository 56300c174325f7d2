// The UTC / local switch of the pages that show times.
import { setTimeZoneChoice, useTimeZone } from '../lib/time-zone.ts';

export function TimeZoneToggle() {
  const zone = useTimeZone();
  return (
    <button type="button" className={zone === 'utc' ? 'toggle on' : 'toggle'} aria-pressed={zone === 'utc'} onClick={() => setTimeZoneChoice(zone === 'utc' ? 'local' : 'utc')}>
      UTC times
    </button>
  );
}
