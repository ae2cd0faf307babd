// The platform modules this package builds against. The app supplies them (peers); these are
// the slices the package uses, so it compiles here without them installed.
declare module 'react-native' {
  import type { ComponentType, ReactNode } from 'react'
  export const Platform: { OS: string; Version: number | string; constants?: Record<string, unknown> }
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
