import type { z } from 'zod'
import { MAX_DETAIL_CHARS } from './constants.js'

const MAX_PATH_SEGMENT = 32
const MAX_ISSUES = 3

/**
 * A short, bounded description of why a value failed its schema. Paths and
 * messages are clipped so a hostile request (60 KiB key names) cannot make the
 * reply large; values themselves are never echoed.
 */
export function describeIssues (issues: readonly z.core.$ZodIssue[]): string {
  const parts = issues.slice(0, MAX_ISSUES).map((issue) => {
    const path = issue.path.map((seg) => clip(String(seg), MAX_PATH_SEGMENT)).join('.')
    const message = clip(issue.message, 100)
    return path === '' ? message : `${path}: ${message}`
  })
  if (issues.length > MAX_ISSUES) parts.push(`(+${issues.length - MAX_ISSUES} more)`)
  return clip(parts.join('; '), MAX_DETAIL_CHARS)
}

/** Cut `text` to at most `max` characters, marking the cut. */
export function clip (text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`
}
