// For tests that read small pins: a reader whose mill is never asked (pins up to ON_LOOP_WORK_MAX_BYTES are read on the loop).
import type { PinReader } from './pins.js'

export const ON_LOOP: PinReader = {
  mill: { run: () => Promise.reject(new Error('a small pin is read on the loop, never in the mill')) },
  owner: null,
  op: 'test',
  hold: () => undefined,
}
