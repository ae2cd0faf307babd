import type { ReactNode } from 'react'
import { Pressable, Text, View } from 'react-native'

export interface EngineNoticeProps {
  title: string
  colors?: { background?: string; accent?: string }
  /** The body text; `children` replace it. */
  message?: string
  children?: ReactNode
  /** A focusable action (the host offers its own delivery); shown only with onAction. */
  actionLabel?: string
  onAction?: () => void
  /** Give the action the initial focus on TV remotes (default true). */
  focusable?: boolean
}

const DEFAULTS = { background: '#101014', accent: '#3d7cff' }

/**
 * The brandable screen for a device the engine cannot run on (ArusBackend.isSupported()
 * false): a title, a message (or children), and an action the host wires to its own delivery.
 */
export function EngineNotice (props: EngineNoticeProps): JSX.Element {
  const background = props.colors?.background ?? DEFAULTS.background
  const accent = props.colors?.accent ?? DEFAULTS.accent
  const focusable = props.focusable ?? true
  return (
    <View testID='arus-engine-notice' accessibilityRole='alert' style={{ flex: 1, alignItems: 'center', justifyContent: 'center', padding: 32, backgroundColor: background }}>
      <Text testID='arus-engine-notice-title' style={{ color: '#ffffff', fontSize: 22, fontWeight: '600', marginBottom: 12, textAlign: 'center' }}>{props.title}</Text>
      {props.children ?? (props.message === undefined ? null : <Text testID='arus-engine-notice-message' style={{ color: '#d0d0d8', fontSize: 16, textAlign: 'center' }}>{props.message}</Text>)}
      {props.onAction === undefined
        ? null
        : (
          <Pressable testID='arus-engine-notice-action' accessibilityRole='button' focusable={focusable} hasTVPreferredFocus={focusable} onPress={props.onAction} style={{ marginTop: 24, paddingVertical: 12, paddingHorizontal: 24, borderRadius: 8, backgroundColor: accent }}>
            <Text style={{ color: '#ffffff', fontSize: 16, fontWeight: '600' }}>{props.actionLabel ?? 'Continue'}</Text>
          </Pressable>
          )}
    </View>
  )
}
