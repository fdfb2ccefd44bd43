// POST /cli's input: read by its route on the loop and, from a large body's bytes, by the mill (mill/tasks/cli-command.ts).
import { z } from 'zod'

export const cliInput = z.union([
  z.object({ line: z.string().min(1) }).strict(),
  z.object({ argv: z.array(z.string()).min(1).max(10_000) }).strict(),
])

export type CliInput = z.output<typeof cliInput>
