import { describe, expect, it } from 'vitest'
import { delayRules, labBootstrap, LabSpec, natRules, planLab } from '@arus/lab'

describe('the lab plan', () => {
  it('lays out namespaces and addresses in private and shared ranges only', () => {
    const plan = planLab({ id: 'x1', homes: [{ devices: 2 }, { devices: 1, nat: 'random', rttMs: 120, jitterMs: 6, lossPct: 1 }] })
    expect(plan.namespaces).toEqual(['arusx1-inet', 'arusx1-dht', 'arusx1-origin', 'arusx1-h1', 'arusx1-h1d1', 'arusx1-h1d2', 'arusx1-h2', 'arusx1-h2d1'])
    expect(plan.dht.hosts).toEqual(['10.77.1.2', '10.77.1.3', '10.77.1.4', '10.77.1.5', '10.77.1.6'])
    expect(labBootstrap(plan)).toBe('10.77.1.2:49737')
    expect(plan.homes[1]).toMatchObject({ ns: 'arusx1-h2', wan: '100.64.2.2', lanCidr: '192.168.2.0/24', nat: 'random', devices: [{ ns: 'arusx1-h2d1', addr: '192.168.2.11' }] })
    const all = [...plan.dht.hosts, plan.origin.addr, ...plan.homes.flatMap((h) => [h.wan, h.lanGateway, ...h.devices.map((d) => d.addr)])]
    for (const a of all) expect(a).toMatch(/^(10\.|100\.(6[4-9]|[7-9]\d|1[01]\d|12[0-7])\.|192\.168\.)/)
  })

  it('gives each attachment half its round trip each way, with jitter and loss', () => {
    const plan = planLab({ id: 'x2', origin: { rttMs: 10 }, homes: [{ rttMs: 41, jitterMs: 3, lossPct: 0.5 }] })
    expect(delayRules(plan)).toEqual(['10.77.1.0/24=0', '10.77.2.0/24=5', '100.64.1.0/24=20.5:3:0.5'])
  })

  it('puts a repeater box at the core on its own link when the spec has one', () => {
    const plan = planLab({ id: 'x3', repeater: { upMbit: 500, rttMs: 4 }, homes: [{}] })
    expect(plan.repeater).toEqual({ ns: 'arusx3-rep', addr: '10.77.3.2', cidr: '10.77.3.0/24', upMbit: 500, rttMs: 4 })
    expect(plan.namespaces).toContain('arusx3-rep')
    expect(delayRules(plan)).toContain('10.77.3.0/24=2')
    expect(planLab({ id: 'x4', homes: [{}] }).repeater).toBeNull()
  })

  it('refuses a bad spec, naming the field', () => {
    expect(() => planLab({ id: 'Bad-Id', homes: [{}] })).toThrow(/id/)
    expect(LabSpec.safeParse({ id: 'ok', homes: [{ devices: 9 }] }).success).toBe(false)
    expect(LabSpec.safeParse({ id: 'ok', homes: [] }).success).toBe(false)
    expect(LabSpec.safeParse({ id: 'ok', homes: [{ nat: 'full-cone' }] }).success).toBe(false)
  })

  it('masquerades (randomly when asked) and drops what comes in from the WAN unasked', () => {
    expect(natRules('preserving')).toContain('oifname "wan" masquerade;')
    expect(natRules('random')).toContain('oifname "wan" masquerade random;')
    expect(natRules('preserving')).toMatch(/input .*iifname "wan" ct state new drop/)
    expect(natRules('preserving')).toMatch(/forward .*iifname "wan" ct state new drop/)
  })
})
