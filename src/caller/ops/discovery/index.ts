// The operations of the discovery lobe, in the order listings show them.
import type { AnyOperation } from '../../operation.js'
import { root } from './root.js'
import { health } from './health.js'
import { map } from './map.js'
import { features } from './features.js'
import { honesty } from './honesty.js'
import { agents } from './agents.js'
import { help } from './help.js'
import { onion } from './onion.js'
import { openapi } from './openapi.js'
import { skills, skillsMarkdown } from './skills.js'
import { captions, lobes, ops, surface } from './listings.js'
import { labs } from './labs.js'
import { lexicon } from './lexicon.js'
import { env } from './env.js'
import { capabilities } from './capabilities.js'
import { detect } from './detect.js'
import { inventory } from './inventory.js'

export const discoveryOperations: AnyOperation[] = [
  root, health, capabilities, map, features, honesty, agents, help, onion, openapi, skills, skillsMarkdown,
  surface, labs, lexicon, inventory, detect, env, lobes, captions, ops,
]
