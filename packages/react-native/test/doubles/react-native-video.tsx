// Test double of react-native-video 6: a host element with the props, and a count of mounts
// (a remount is a new mount with a new key).
import { createElement, useEffect } from 'react'

export const videoMounts = { count: 0 }

export default function Video (props: Record<string, unknown>) {
  useEffect(() => { videoMounts.count++ }, [])
  return createElement('RNVideo', props)
}
