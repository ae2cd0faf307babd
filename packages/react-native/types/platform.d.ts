// The platform modules this package builds against. The app supplies them (peers); these are
// the slices the package uses, so it compiles here without them installed.
declare module 'react-native' {
  import type { ComponentType, ReactNode } from 'react'
  /**
   * React Native's PlatformConstants: on Android also Version, Release, Serial, Fingerprint,
   * Model, Brand, Manufacturer, ServerHost and uiMode. No ABI list.
   */
  export interface PlatformConstants {
    isTesting: boolean
    reactNativeVersion: { major: number; minor: number; patch: number; prerelease?: number | string | null }
    Version?: number
    Release?: string
    Serial?: string
    Fingerprint?: string
    Model?: string
    Brand?: string
    Manufacturer?: string
    ServerHost?: string
    uiMode?: string
  }
  export const Platform: { OS: string; Version: number | string; constants: PlatformConstants }
  export type StyleProp = Record<string, unknown> | Array<Record<string, unknown> | null | undefined | false> | null | undefined
  export const View: ComponentType<{ style?: StyleProp; children?: ReactNode; accessibilityRole?: string; testID?: string }>
  export const Text: ComponentType<{ style?: StyleProp; children?: ReactNode; testID?: string }>
  export const Pressable: ComponentType<{ style?: StyleProp; children?: ReactNode; onPress?: () => void; focusable?: boolean; hasTVPreferredFocus?: boolean; accessibilityRole?: string; testID?: string }>
}

declare module 'react-native-video' {
  import type { ComponentType } from 'react'
  const Video: ComponentType<Record<string, unknown>>
  export default Video
}

declare module 'react-native-bare-kit' {
  export class Worklet {
    constructor ()
    readonly IPC: { on(event: 'data', fn: (data: Uint8Array) => void): unknown; write(data: Uint8Array): unknown }
    start(filename: string, source: Uint8Array, args?: string[]): void
    terminate(): void
  }
}
