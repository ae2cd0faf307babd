// Test double of react-native: the primitives as plain host elements, a mutable Platform.
import { createElement, type ReactNode } from 'react'

export const Platform: { OS: string; Version: number | string; constants?: Record<string, unknown> } = { OS: 'android', Version: 34, constants: { supported64BitAbis: ['arm64-v8a'] } }

const host = (name: string) => function Host (props: Record<string, unknown> & { children?: ReactNode }) {
  return createElement(name, props, props.children)
}
export const View = host('View')
export const Text = host('Text')
export const Pressable = host('Pressable')
