import { describe, expect, it } from 'vitest'
import { addressedByOwnName } from './host-names.js'

const config = { host: '127.0.0.1', publicUrl: null }

describe('addressedByOwnName', () => {
  it('takes addresses, localhost and its subdomains, with or without a port', () => {
    for (const host of ['127.0.0.1:8000', '127.0.0.1', '[::1]:8000', '10.0.0.7:80', 'localhost:8000', 'LOCALHOST', 'app.localhost:3000', undefined]) {
      expect(addressedByOwnName(host, config), String(host)).toBe(true)
    }
  })

  it('refuses any other name, and what is no host at all', () => {
    for (const host of ['evil.example:8000', 'evil.example', 'localhost.evil.example', '127.0.0.1.nip.io:8000', '', 'a b', 'user@localhost', 'localhost/x']) {
      expect(addressedByOwnName(host, config), host).toBe(false)
    }
  })

  it('takes the names the host is configured with: HOST and PUBLIC_URL', () => {
    expect(addressedByOwnName('devbox.lan:8000', { ...config, host: 'devbox.lan' })).toBe(true)
    expect(addressedByOwnName('hub.example.org', { ...config, publicUrl: 'https://hub.example.org/ncm' })).toBe(true)
    expect(addressedByOwnName('other.example.org', { ...config, publicUrl: 'https://hub.example.org/ncm' })).toBe(false)
  })
})
