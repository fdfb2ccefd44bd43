// /api/v10: the previous API kept for old clients, marked deprecated with a successor link on every answer.

/** RFC 9745 `Deprecation` (a structured-field date: @epoch seconds) and RFC 8594 `Sunset` (an HTTP-date). */
export const V10_DEPRECATED_AT = Date.UTC(2026, 0, 1)
export const V10_SUNSET_AT = Date.UTC(2027, 5, 30, 23, 59, 59)

/** The version v10 clients were written against. */
export const V10_VERSION = '10.9.0'

export const V10_SUCCESSORS: Record<string, string> = {
  '/api/v10/system/health': '/api/v11/system/health',
  '/api/v10/trading/max-edge-signal': '/api/v11/trading/max-edge-signal',
  '/api/v10/datasets': '/api/v11/datasets',
}

/** The headers every v10 answer carries: when it was deprecated, when it goes, and where to go instead. */
export function v10Headers(routeUrl: string | undefined): Record<string, string> {
  const successor = V10_SUCCESSORS[routeUrl ?? ''] ?? '/api/v11/system/inventory'
  return {
    deprecation: `@${Math.floor(V10_DEPRECATED_AT / 1000)}`,
    sunset: new Date(V10_SUNSET_AT).toUTCString(),
    link: `<${successor}>; rel="successor-version"`,
  }
}
