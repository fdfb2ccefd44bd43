// Job figures for /metrics (Prometheus text 0.0.4) and the /admin page: jobs by state, queue depth, throughput,
// and a histogram of run durations.
import { escapeLabel } from '../http/prometheus.js'
import type { JobStats } from './types.js'

export function renderJobMetrics(stats: JobStats): string {
  const out: string[] = []
  const family = (name: string, type: 'gauge' | 'histogram', help: string) => out.push(`# HELP ${name} ${help}`, `# TYPE ${name} ${type}`)
  family('ncm_jobs', 'gauge', 'Jobs in the store (not purged), by state.')
  for (const [state, count] of Object.entries(stats.by_state)) out.push(`ncm_jobs{state="${escapeLabel(state)}"} ${count}`)
  family('ncm_jobs_queue_depth', 'gauge', 'Jobs waiting for a runner (in this process; with REDIS_URL in the queue all replicas share).')
  out.push(`ncm_jobs_queue_depth ${stats.queue_depth}`)
  family('ncm_jobs_running', 'gauge', 'Jobs running in this process.')
  out.push(`ncm_jobs_running ${stats.running}`)
  family('ncm_jobs_throughput_per_minute', 'gauge', 'Jobs that reached a final state per minute, over the last 15 minutes.')
  out.push(`ncm_jobs_throughput_per_minute ${stats.throughput_per_min}`)
  family('ncm_job_duration_seconds', 'histogram', 'Run time of jobs finished since start (start of the run to its final state).')
  for (const bucket of stats.durations_ms.buckets) out.push(`ncm_job_duration_seconds_bucket{le="${bucket.le / 1000}"} ${bucket.count}`)
  out.push(`ncm_job_duration_seconds_bucket{le="+Inf"} ${stats.durations_ms.count}`)
  out.push(`ncm_job_duration_seconds_sum ${stats.durations_ms.sum / 1000}`)
  out.push(`ncm_job_duration_seconds_count ${stats.durations_ms.count}`)
  return out.join('\n') + '\n'
}
