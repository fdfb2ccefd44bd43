// The Prometheus text exposition format (0.0.4) that /metrics answers in: what both of its writers (the host's
// request figures, plugins/metrics.ts; the jobs', jobs/metrics.ts) share of it.

/** Escapes a label value per the Prometheus text exposition format (backslash, double quote, line feed). */
export const escapeLabel = (value: string) => value.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n')
