/** Small helpers shared by the broadcaster's modules. */

/** A source as it may appear in logs, incidents and the API: URL credentials hidden. */
export function safeSource (source: string): string {
  if (!URL.canParse(source) || !/^[a-z][a-z0-9+.-]*:\/\//i.test(source)) return source
  const u = new URL(source)
  if (u.password !== '') u.password = 'redacted'
  for (const k of [...u.searchParams.keys()]) if (/pass|secret|token|key/i.test(k)) u.searchParams.set(k, 'redacted')
  return u.href
}

export const sleep = (ms: number, signal?: AbortSignal): Promise<void> => new Promise((resolve) => {
  if (signal?.aborted) { resolve(); return }
  const timer = setTimeout(done, ms)
  function done () { clearTimeout(timer); signal?.removeEventListener('abort', done); resolve() }
  signal?.addEventListener('abort', done, { once: true })
})

export const hex = (bytes: Uint8Array): string => Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('hex')
