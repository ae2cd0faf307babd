/**
 * Plain-object maps keyed by outside input (a name or id from a path, a body, a file or a
 * peer). A key such as `constructor`, `toString` or `__proto__` must find nothing unless the
 * map holds it itself, and storing under one must write data, never a prototype: an inherited
 * value read as a record once answered 500s and reached a Buffer call (issue 39 item 9).
 */

/** The value `map` holds under `key` itself; never one inherited from Object.prototype. */
export function ownValue<T> (map: Readonly<Record<string, T>>, key: string): T | undefined {
  return Object.hasOwn(map, key) ? map[key] : undefined
}

/**
 * A map without a prototype, filled from `entries` (an object's own entries or pairs): every
 * read is an own read and every write, `__proto__` included, is plain data. JSON and
 * `Object.keys`/`entries`/spread treat it like any object.
 */
export function keyedRecord<T> (entries: Readonly<Record<string, T>> | Iterable<readonly [string, T]> = []): Record<string, T> {
  const out = Object.create(null) as Record<string, T>
  const pairs = Symbol.iterator in entries ? entries as Iterable<readonly [string, T]> : Object.entries(entries as Record<string, T>)
  for (const [k, v] of pairs) out[k] = v
  return out
}
