// POST /upgrade: is a client's contract version served here (semver), and what changed since it.
import semver from 'semver'
import { z } from 'zod'
import { defineOperation } from '../../operation.js'
import { NCM_VERSION } from '../../../version.js'
import { CHANGE_KINDS, CHANGELOG } from '../../changelog.js'

const entry = z.object({
  version: z.string(),
  date: z.string(),
  summary: z.string(),
  changes: z.object(Object.fromEntries(CHANGE_KINDS.map((kind) => [kind, z.array(z.string()).optional()])) as Record<
    (typeof CHANGE_KINDS)[number],
    z.ZodOptional<z.ZodArray<z.ZodString>>
  >),
})

export const upgrade = defineOperation({
  name: 'upgrade',
  method: 'POST',
  path: '/upgrade',
  lobe: 'access',
  caption: "Is a client's contract version compatible with this host's, and what changed since it",
  summary:
    `Compares { from: "<ncm version>" } with this host's contract version (${NCM_VERSION}) by Semantic Versioning: ` +
    'compatible when the major versions match and from is not newer. Lists the changelog entries after from, up to ' +
    'and including the current version (the same entries as CHANGELOG.md). A from newer than the host is answered ' +
    'as incompatible, with the reason.',
  input: z
    .object({
      from: z
        .string()
        .max(256)
        .refine((v) => semver.valid(v) !== null, { message: 'must be a semantic version such as "1.0.0"' })
        .describe('The ncm version the client was written for'),
    })
    .strict(),
  output: z.object({
    from: z.string(),
    current: z.string(),
    relation: z.enum(['same', 'older', 'newer']).describe('from compared with current'),
    compatible: z.boolean(),
    breaking: z.boolean().describe('The major versions differ'),
    reason: z.string(),
    changes: z.array(entry).describe('Entries after from, up to current, newest first'),
  }),
  provenance: ['declared', 'computed'],
  sources: ['CHANGELOG.md (src/caller/changelog.ts)', 'Semantic Versioning 2.0.0, https://semver.org/spec/v2.0.0.html'],
  examples: [{ from: '1.0.0' }, { from: '0.9.0' }],
  handler: (input) => {
    const from = semver.valid(input.from)!
    const current = NCM_VERSION
    const order = semver.compare(from, current)
    const relation = order === 0 ? 'same' : order < 0 ? 'older' : 'newer'
    const breaking = semver.major(from) !== semver.major(current)
    const compatible = !breaking && order <= 0
    const reason =
      relation === 'newer'
        ? `${from} is newer than this host's contract ${current}: this host cannot serve it; use a host at ${from} or later, or a client written for ${current}`
        : breaking
          ? `major version ${semver.major(from)} → ${semver.major(current)}: the contract changed incompatibly; read the changes before upgrading the client`
          : relation === 'same'
            ? `${from} is this host's contract version`
            : `${from} → ${current} keeps major version ${semver.major(current)}: only additions and fixes`
    const changes = CHANGELOG.filter((e) => semver.gt(e.version, from) && semver.lte(e.version, current)).map((e) => ({
      version: e.version,
      date: e.date,
      summary: e.summary,
      changes: e.changes,
    }))
    return { from, current, relation: relation as 'same' | 'older' | 'newer', compatible, breaking, reason, changes }
  },
})
