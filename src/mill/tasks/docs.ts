// Mill tasks of the documentation: the host's OpenAPI document as YAML. Encoding its 1.1 MB took ~300 ms of the loop's
// CPU in one stretch (once per process, but whoever asked first held every other client that long).
import { stringify } from 'yaml'
import type { TaskTable } from '../types.js'

export const docsTasks = {
  /**
   * Takes the document object itself, not its JSON text: a structured clone keeps which members are one shared object,
   * and YAML writes those as anchors and aliases (`&a1` / `*a1`), as @fastify/swagger's own `yaml.stringify` of the
   * document did. Options as @fastify/swagger's, so the text is the same byte for byte.
   */
  'docs.yaml': (document: object) => stringify(document, { strict: false }),
} satisfies TaskTable
