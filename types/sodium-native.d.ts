// Ambient declarations for sodium-native 5.x (CommonJS, no bundled types).
// Only what Arus calls is declared, with Uint8Array parameters (sodium-native accepts any
// typed array; @types/sodium-native says Buffer). Another file may add functions by
// augmenting the interface:
//   declare module 'sodium-native' { interface SodiumNative { crypto_x(out: Uint8Array): void } }

declare module 'sodium-native' {
  interface SodiumNative {
    randombytes_buf(out: Uint8Array): void
    sodium_memcmp(a: Uint8Array, b: Uint8Array): boolean

    crypto_generichash(out: Uint8Array, input: Uint8Array, key?: Uint8Array): void
    readonly crypto_generichash_BYTES_MIN: number
    readonly crypto_generichash_BYTES_MAX: number
    readonly crypto_generichash_KEYBYTES_MIN: number
    readonly crypto_generichash_KEYBYTES_MAX: number

    crypto_pwhash_async(
      out: Uint8Array,
      passwd: Uint8Array,
      salt: Uint8Array,
      opslimit: number,
      memlimit: number,
      alg: number
    ): Promise<void>
    readonly crypto_pwhash_ALG_ARGON2ID13: number
    readonly crypto_pwhash_SALTBYTES: number
    readonly crypto_pwhash_OPSLIMIT_MIN: number
    readonly crypto_pwhash_OPSLIMIT_MAX: number
    readonly crypto_pwhash_MEMLIMIT_MIN: number
    readonly crypto_pwhash_MEMLIMIT_MAX: number
    readonly crypto_pwhash_PASSWD_MAX: number

    crypto_secretbox_easy(c: Uint8Array, m: Uint8Array, n: Uint8Array, k: Uint8Array): void
    crypto_secretbox_open_easy(m: Uint8Array, c: Uint8Array, n: Uint8Array, k: Uint8Array): boolean
    readonly crypto_secretbox_KEYBYTES: number
    readonly crypto_secretbox_NONCEBYTES: number
    readonly crypto_secretbox_MACBYTES: number

    /** Returns the ciphertext length. */
    crypto_aead_xchacha20poly1305_ietf_encrypt(
      c: Uint8Array,
      m: Uint8Array,
      ad: Uint8Array | null,
      nsec: null,
      npub: Uint8Array,
      k: Uint8Array
    ): number
    /** Returns the plaintext length; throws when authentication fails. */
    crypto_aead_xchacha20poly1305_ietf_decrypt(
      m: Uint8Array,
      nsec: null,
      c: Uint8Array,
      ad: Uint8Array | null,
      npub: Uint8Array,
      k: Uint8Array
    ): number
    readonly crypto_aead_xchacha20poly1305_ietf_KEYBYTES: number
    readonly crypto_aead_xchacha20poly1305_ietf_NPUBBYTES: number
    readonly crypto_aead_xchacha20poly1305_ietf_ABYTES: number

    crypto_box_keypair(pk: Uint8Array, sk: Uint8Array): void
    crypto_box_seal(c: Uint8Array, m: Uint8Array, pk: Uint8Array): void
    crypto_box_seal_open(m: Uint8Array, c: Uint8Array, pk: Uint8Array, sk: Uint8Array): boolean
    readonly crypto_box_PUBLICKEYBYTES: number
    readonly crypto_box_SECRETKEYBYTES: number
    readonly crypto_box_SEALBYTES: number

    crypto_sign_keypair(pk: Uint8Array, sk: Uint8Array): void
    crypto_sign_seed_keypair(pk: Uint8Array, sk: Uint8Array, seed: Uint8Array): void
    crypto_sign_detached(sig: Uint8Array, m: Uint8Array, sk: Uint8Array): void
    crypto_sign_verify_detached(sig: Uint8Array, m: Uint8Array, pk: Uint8Array): boolean
    readonly crypto_sign_PUBLICKEYBYTES: number
    readonly crypto_sign_SECRETKEYBYTES: number
    readonly crypto_sign_SEEDBYTES: number
    readonly crypto_sign_BYTES: number
  }

  const sodium: SodiumNative
  export default sodium
}
