/**
 * Sets an own, enumerable key. `__proto__` is the one key whose assignment would change the
 * prototype instead (it is an accessor on Object.prototype), so only it goes through
 * defineProperty; every other key is a plain assignment, which is several times faster.
 */
export function setOwn(target: object, key: string, value: unknown): void {
  if (key === '__proto__') Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
  else (target as Record<string, unknown>)[key] = value;
}
