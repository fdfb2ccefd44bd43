// HTML pieces of the command center: escaping, number formats, tables, links.

import { escapeHtml as esc } from '../http/html.js'

export { esc }

// One formatter per digit count: toLocaleString with options builds one per call (~5 µs; a command-center page makes
// hundreds, and 30 parallel GETs of it held the loop 60-90 ms of CPU).
const FORMATS = new Map<number, Intl.NumberFormat>()

export function num(value: unknown, digits = 2): string {
  if (typeof value !== 'number' || !Number.isFinite(value)) return '—'
  let format = FORMATS.get(digits)
  if (!format) FORMATS.set(digits, (format = new Intl.NumberFormat('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits })))
  return format.format(value)
}

export const signed = (value: unknown, digits = 2): string =>
  typeof value === 'number' && Number.isFinite(value) ? `${value > 0 ? '+' : ''}${num(value, digits)}` : '—'

export const tone = (value: unknown): string =>
  typeof value === 'number' && Number.isFinite(value) && value !== 0 ? (value > 0 ? 'up' : 'down') : ''

export const day = (isoText: unknown): string => (typeof isoText === 'string' ? isoText.slice(0, 16).replace('T', ' ') : '—')

export const params = (p: Record<string, unknown>): string =>
  Object.entries(p).map(([k, v]) => `${k}=${v}`).join(', ') || '—'

export function table(headers: string[], rows: string[][], empty: string): string {
  if (rows.length === 0) return `<p class="empty">${esc(empty)}</p>`
  return `<table><thead><tr>${headers.map((h) => `<th>${esc(h)}</th>`).join('')}</tr></thead><tbody>${
    rows.map((r) => `<tr>${r.join('')}</tr>`).join('')}</tbody></table>`
}

export const td = (text: string, cls = ''): string => `<td${cls ? ` class="${cls}"` : ''}>${text}</td>`

export const link = (href: string, text: string): string => `<a href="${esc(href)}">${esc(text)}</a>`

/** A panel's footer: where the whole list is read back (JSON, paged). */
export const more = (links: Array<[string, string]>): string =>
  `<p class="more">${links.map(([href, text]) => link(href, text)).join(' · ')}</p>`
