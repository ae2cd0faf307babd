import { z } from 'zod'
import type { FsModule } from '../runtime.js'
import { joinPath } from '../runtime.js'
import type { EnginePrefs } from '@arus/engine-protocol'

const PrefsFile = z.object({
  creds: z.object({ username: z.string().min(1).max(256), password: z.string().min(1).max(1024) }).nullable().catch(null),
  favorites: z.array(z.string().min(1).max(256)).max(10_000).catch([])
})

/**
 * The worklet's small preferences store (`<dataDir>/prefs.json`, mode 0600): the credentials a
 * host saved for auto-login and the favorite stream ids. Writes are atomic (a temp file renamed
 * over the old one); an unreadable or damaged file reads as empty prefs.
 */
export class PrefsStore {
  private prefs: EnginePrefs = { creds: null, favorites: [] }
  private queue: Promise<unknown> = Promise.resolve()

  constructor (private readonly fs: FsModule, private readonly dir: string) {}

  private get path (): string { return joinPath(this.dir, 'prefs.json') }

  async load (): Promise<EnginePrefs> {
    try {
      const text = new TextDecoder().decode(await this.fs.readFile(this.path))
      const parsed = PrefsFile.safeParse(JSON.parse(text))
      if (parsed.success) this.prefs = { creds: parsed.data.creds, favorites: [...new Set(parsed.data.favorites)] }
    } catch {
      // absent or damaged: empty prefs
    }
    return this.get()
  }

  get (): EnginePrefs {
    return { creds: this.prefs.creds === null ? null : { ...this.prefs.creds }, favorites: [...this.prefs.favorites] }
  }

  saveCredentials (username: string, password: string): Promise<EnginePrefs> {
    return this.update({ ...this.prefs, creds: { username, password } })
  }

  clearCredentials (): Promise<EnginePrefs> {
    return this.update({ ...this.prefs, creds: null })
  }

  toggleFavorite (streamId: string): Promise<EnginePrefs> {
    const has = this.prefs.favorites.includes(streamId)
    const favorites = has ? this.prefs.favorites.filter((f) => f !== streamId) : [...this.prefs.favorites, streamId]
    return this.update({ ...this.prefs, favorites })
  }

  private update (next: EnginePrefs): Promise<EnginePrefs> {
    this.prefs = next
    const text = JSON.stringify(next)
    const write = this.queue.then(async () => {
      await this.fs.mkdir(this.dir, { recursive: true, mode: 0o700 })
      const tmp = this.path + '.tmp'
      await this.fs.writeFile(tmp, text, { mode: 0o600 })
      await this.fs.rename(tmp, this.path)
    })
    this.queue = write.catch(() => {})
    return write.then(() => this.get())
  }
}
