import { readFile, stat } from 'node:fs/promises'
import { extname } from 'node:path'
import { z } from 'zod'
import { ServiceError } from '@arus/service'
import type { ResellerConfig } from './config.js'

/**
 * The white-label surface (spec 2 "Branding": {name, accent, logo, favicon, loginBg,
 * loginStyle}): BRAND_* files are read and checked once at boot (a bad one aborts boot naming
 * its variable), then served from memory at /branding/*, with /branding.json and
 * /branding.css for the UI. Images are served with a sandboxing CSP (an SVG cannot run script).
 */

export const LOGIN_STYLES = ['glow', 'plain', 'grid', 'dots', 'stripes'] as const

const Color = z.string().regex(/^#([0-9a-fA-F]{3}|[0-9a-fA-F]{6})$/, 'a colour as #rgb or #rrggbb')
export const BrandTheme = z.strictObject({ accent: Color.optional(), background: Color.optional(), surface: Color.optional(), text: Color.optional() })
export const BrandingReply = z.object({
  name: z.string(),
  accent: z.string(),
  logo: z.string().nullable(),
  favicon: z.string().nullable(),
  loginBg: z.string().nullable(),
  loginStyle: z.enum(LOGIN_STYLES)
})

export interface BrandFile { bytes: Buffer; type: string }
export interface Branding {
  json: z.infer<typeof BrandingReply>
  css: string
  files: Record<'logo' | 'favicon' | 'login-bg', BrandFile | null>
}

const DEFAULT_THEME = { accent: '#3b82f6', background: '#0f172a', surface: '#1e293b', text: '#e2e8f0' }

const TYPES: Record<string, string> = { '.png': 'image/png', '.jpg': 'image/jpeg', '.jpeg': 'image/jpeg', '.webp': 'image/webp', '.gif': 'image/gif', '.svg': 'image/svg+xml', '.ico': 'image/x-icon' }

/** The file's media type from its first bytes (the extension alone is not trusted), or null. */
function sniff (b: Buffer, ext: string): string | null {
  if (b.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]))) return 'image/png'
  if (b[0] === 0xff && b[1] === 0xd8 && b[2] === 0xff) return 'image/jpeg'
  if (b.subarray(0, 4).toString('latin1') === 'RIFF' && b.subarray(8, 12).toString('latin1') === 'WEBP') return 'image/webp'
  if (b.subarray(0, 4).toString('latin1') === 'GIF8') return 'image/gif'
  if (b[0] === 0 && b[1] === 0 && b[2] === 1 && b[3] === 0) return 'image/x-icon'
  if (ext === '.svg' && /<svg[\s>]/i.test(b.subarray(0, 4096).toString('utf8'))) return 'image/svg+xml'
  return null
}

async function loadImage (variable: string, path: string | undefined, maxBytes: number): Promise<BrandFile | null> {
  if (path === undefined) return null
  const bad = (why: string) => ServiceError.invalidConfig(`${variable}: ${why}`, { variable })
  const info = await stat(path).catch(() => null)
  if (!info?.isFile()) throw bad('no such file')
  if (info.size > maxBytes) throw bad(`larger than ${maxBytes >> 20} MiB`)
  const bytes = await readFile(path)
  const ext = extname(path).toLowerCase()
  const type = sniff(bytes, ext)
  if (type === null || TYPES[ext] === undefined) throw bad('not a PNG, JPEG, WebP, GIF, ICO or SVG image')
  return { bytes, type }
}

export async function loadBranding (c: Pick<ResellerConfig, 'BRAND_NAME' | 'BRAND_LOGO_FILE' | 'BRAND_FAVICON_FILE' | 'BRAND_LOGIN_BG_FILE' | 'BRAND_LOGIN_STYLE' | 'BRAND_THEME_FILE'>): Promise<Branding> {
  let theme = DEFAULT_THEME
  if (c.BRAND_THEME_FILE !== undefined) {
    const text = await readFile(c.BRAND_THEME_FILE, 'utf8').catch(() => null)
    if (text === null) throw ServiceError.invalidConfig('BRAND_THEME_FILE: no such file', { variable: 'BRAND_THEME_FILE' })
    let json: unknown
    try { json = JSON.parse(text) } catch { throw ServiceError.invalidConfig('BRAND_THEME_FILE: not JSON', { variable: 'BRAND_THEME_FILE' }) }
    const parsed = BrandTheme.safeParse(json)
    if (!parsed.success) throw ServiceError.invalidConfig(`BRAND_THEME_FILE: ${parsed.error.issues[0]?.path.join('.') ?? ''} ${parsed.error.issues[0]?.message ?? 'invalid'}`, { variable: 'BRAND_THEME_FILE' })
    theme = { ...DEFAULT_THEME, ...parsed.data }
  }
  const files = {
    logo: await loadImage('BRAND_LOGO_FILE', c.BRAND_LOGO_FILE, 1 << 20),
    favicon: await loadImage('BRAND_FAVICON_FILE', c.BRAND_FAVICON_FILE, 1 << 20),
    'login-bg': await loadImage('BRAND_LOGIN_BG_FILE', c.BRAND_LOGIN_BG_FILE, 4 << 20)
  }
  const css = [
    ':root {',
    `  --brand-accent: ${theme.accent};`,
    `  --brand-bg: ${theme.background};`,
    `  --brand-surface: ${theme.surface};`,
    `  --brand-text: ${theme.text};`,
    files['login-bg'] ? '  --brand-login-bg: url("/branding/login-bg");' : '  --brand-login-bg: none;',
    '}',
    ''
  ].join('\n')
  return {
    json: {
      name: c.BRAND_NAME,
      accent: theme.accent,
      logo: files.logo ? '/branding/logo' : null,
      favicon: files.favicon ? '/branding/favicon' : null,
      loginBg: files['login-bg'] ? '/branding/login-bg' : null,
      loginStyle: c.BRAND_LOGIN_STYLE
    },
    css,
    files
  }
}
