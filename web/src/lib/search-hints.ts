// What the search page says beside its results: loose matches, and field paths a word names.

/** "3 journeys match ignoring case" (an address) or "... ignoring how the number is written" (a phone). */
export function looseMatchWording(count: number, more: boolean, q: string): string {
  const journeys = `${more ? 'more than ' : ''}${count} ${count === 1 && !more ? 'journey matches' : 'journeys match'}`;
  return q.includes('@') ? `${journeys} ignoring case` : `${journeys} ignoring how the number is written`;
}

/**
 * The known field paths a typed word names: the whole path or one of its segments, ignoring
 * case ("phone" names customer.phone and phone, not telephone_type).
 */
export function fieldPathsMatching<T extends { path: string }>(fields: T[], q: string): T[] {
  const word = q.trim().toLowerCase();
  if (word === '' || /\s/u.test(word)) return [];
  return fields.filter((field) => {
    const path = field.path.toLowerCase();
    return path === word || path.split(/[.[\]]+/u).includes(word);
  });
}
