import { collectDefaultMetrics, Registry } from 'prom-client'

/**
 * Prometheus metrics for /metrics. Daemons build their registry here and add their own
 * counters and gauges with the re-exported prom-client classes (so they need no direct
 * prom-client dependency).
 */
export { Counter, Gauge, Histogram, Registry } from 'prom-client'

/** Options of {@link createMetricsRegistry}. */
export interface MetricsRegistryInit {
  /** Collect prom-client's default process metrics (RSS, heap, CPU, event loop lag, ...). Default true. */
  defaultMetrics?: boolean
  /** Labels added to every metric of the registry (e.g. `{ service: 'arus' }`). */
  labels?: Record<string, string>
}

/** A fresh registry, with the default process metrics unless turned off. */
export function createMetricsRegistry (init: MetricsRegistryInit = {}): Registry {
  const registry = new Registry()
  if (init.labels) registry.setDefaultLabels(init.labels)
  if (init.defaultMetrics !== false) collectDefaultMetrics({ register: registry })
  return registry
}
