// The shape both dependency analyses report (requirements.txt vs *.py imports; package.json vs TypeScript imports).

export interface ImportSite {
  file: string
  line: number
}

export interface AnalysedModule {
  /** Import name (Python top-level module, or npm package name). */
  module: string
  /** The distribution / package expected to provide it. */
  package: string
  /** How `package` was found: a documented mapping table, the same name, or package.json. */
  mapping: string
  declared: boolean
  /** True/false from the environment check; null when the environment could not be asked. */
  importable: boolean | null
  /** A missing critical module stops something from running (an unguarded import in a script, a runtime import). */
  critical: boolean
  sites: ImportSite[]
}

export interface DependencyAdvisory {
  module: string
  /** What to add or install (`PyYAML`, `-r path`), or null when the fix is a removal or an edit. */
  recommended_package: string | null
  critical: boolean
  /** Every finding about this module, one sentence each. */
  findings: string[]
  detail: string
}

export interface DependencySummary {
  algorithm: string
  /** pass: nothing to say; warn: advisories only; fail: a critical module is missing from the environment. */
  status: 'pass' | 'warn' | 'fail'
  manifest: { path: string; exists: boolean; files_read: string[] }
  scanned: { files: string[]; truncated: boolean }
  declared: Array<{ name: string; specifier: string; file: string; line?: number; scope?: string }>
  modules: AnalysedModule[]
  missing_in_requirements: string[]
  missing_in_environment: string[]
  advisory_missing_in_environment: string[]
  /** Declared but imported by no scanned file (may still be used through a binary or a tool's config). */
  declared_not_imported: string[]
  autofix_packages: string[]
  autofix_command: string | null
  advisories: DependencyAdvisory[]
  /** Node only: where the process starts and how many source files it can load. */
  runtime?: { entry_points: string[]; reachable_files: number }
  environment: { checked: boolean; interpreter: string | null; error: string | null }
  sources: Record<string, string>
}

/** Collects findings per module so each module appears once in `advisories`. */
export class AdvisoryBook {
  private readonly byModule = new Map<string, DependencyAdvisory>()

  add(module: string, finding: string, recommended: string | null, critical = false): void {
    const existing = this.byModule.get(module)
    if (existing) {
      existing.findings.push(finding)
      existing.critical ||= critical
      existing.recommended_package ??= recommended
      existing.detail = existing.findings.join('; ')
      return
    }
    this.byModule.set(module, { module, recommended_package: recommended, critical, findings: [finding], detail: finding })
  }

  list(): DependencyAdvisory[] {
    return [...this.byModule.values()].sort((a, b) => (a.module < b.module ? -1 : a.module > b.module ? 1 : 0))
  }
}
