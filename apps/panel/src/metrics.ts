/** Panel counters. The admin HTTP server exposes them as Prometheus text (arus_panel_*). */
export interface Counter { inc(n?: number): void; value(): number }

export interface PanelMetrics {
  loginsOk: Counter
  loginsFailed: Counter
  sessionsIssued: Counter
}

function counter (): Counter {
  let n = 0
  return { inc (by = 1) { n += by }, value: () => n }
}

export function createPanelMetrics (): PanelMetrics {
  return { loginsOk: counter(), loginsFailed: counter(), sessionsIssued: counter() }
}
