/**
 * Admin tokens whose Ed25519 signature the gate already checked (docs/architecture.md "Edit
 * propagation"): an admin client sends the same token with every request, and the signature
 * check was 0.17 ms of each one. Keyed by the whole token string, so only those exact bytes
 * skip it; the expiry, type and tokenVersion checks run on every request as before. Bounded:
 * the least recently used token leaves first.
 */
export class VerifiedTokens<P> {
  private readonly map = new Map<string, P>()

  constructor (private readonly max = 256) {
    if (!Number.isInteger(max) || max < 1) throw new RangeError('max must be a positive integer')
  }

  get size (): number { return this.map.size }

  /** The payload of a token checked before, or undefined. */
  get (token: string): P | undefined {
    const payload = this.map.get(token)
    if (payload !== undefined) {
      this.map.delete(token)
      this.map.set(token, payload)
    }
    return payload
  }

  /** Remembers a token whose signature just verified. */
  add (token: string, payload: P): void {
    this.map.delete(token)
    this.map.set(token, payload)
    if (this.map.size > this.max) this.map.delete(this.map.keys().next().value as string)
  }

  delete (token: string): void {
    this.map.delete(token)
  }
}
