// Test double of react-native: the primitives as plain host elements, a mutable Platform.
import { createElement, type ReactNode } from 'react'

/** React Native's Platform on Android, with the constants it really has (no ABI list). */
export const Platform: { OS: string; Version: number | string; constants: Record<string, unknown> } = {
  OS: 'android',
  Version: 34,
  constants: {
    Version: 34,
    Release: '14',
    Serial: 'unknown',
    Fingerprint: 'test/box/box:14/UP1A/1:user/release-keys',
    Model: 'Test Box',
    Brand: 'test',
    Manufacturer: 'Test',
    ServerHost: 'localhost:8081',
    uiMode: 'tv',
    isTesting: false,
    reactNativeVersion: { major: 0, minor: 76, patch: 0, prerelease: null }
  }
}

const host = (name: string) => function Host (props: Record<string, unknown> & { children?: ReactNode }) {
  return createElement(name, props, props.children)
}
export const View = host('View')
export const Text = host('Text')
export const Pressable = host('Pressable')
