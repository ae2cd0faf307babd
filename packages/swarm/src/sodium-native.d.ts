// Minimal typing for the one sodium-native call this package makes. types/holepunch.d.ts
// has no sodium-native facade and @types/sodium-native is not installed; this file stays
// inside @arus/swarm (it is not emitted to dist, and no public type refers to it).
declare module 'sodium-native' {
  const sodium: {
    /** BLAKE2b with output length `output.byteLength` (16..64). */
    crypto_generichash(output: Uint8Array, input: Uint8Array, key?: Uint8Array): void
  }
  export default sodium
}
