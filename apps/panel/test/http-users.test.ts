import { describe, expect, it } from 'vitest'
import { generateSigningKeyPair, toHex } from '@arus/crypto'
import { enrollDevice } from '../src/rpc/auth.js'
import { adminApi, type AdminApi } from './http-helpers.js'

/** Enrolls a device directly in the record (the viewer RPC's session step does the same). */
async function enroll (a: AdminApi, username: string, label: string): Promise<string> {
  const deviceId = toHex(generateSigningKeyPair().publicKey)
  await a.opened.ctx.catalog.updateUser(username, (u) => u && enrollDevice(u, deviceId, label, Date.now()))
  return deviceId
}

describe('admin API: users', () => {
  it('creates users, refuses duplicates and bad names, and pages with prefix/after/limit → next', async (t) => {
    const a = await adminApi(t)
    const created = await a.call('POST', '/api/users', { username: 'ann', password: 'pw' })
    expect(created.status).toBe(201)
    expect(created.body).toMatchObject({ username: 'ann', status: 'active', tokenVersion: 0, maxDevices: 5, devices: [], grants: [], manualGrants: [], packages: [] })
    expect(Object.keys(created.body).sort()).toEqual(['devices', 'grants', 'keyVersion', 'manualGrants', 'maxDevices', 'packages', 'pub', 'status', 'tokenVersion', 'username'])
    expect(created.body.keyVersion).toBe(2) // login key schedule 2 for every new account (issue 40)
    expect((await a.call('POST', '/api/users', { username: 'ann', password: 'pw' })).body.error.code).toBe('PANEL_EXISTS')
    const bad = await a.call('POST', '/api/users', { username: 'bad name', password: 'pw' })
    expect([bad.status, bad.body.error.code]).toEqual([400, 'SERVICE_VALIDATION_FAILED'])
    expect((await a.call('POST', '/api/users', { username: 'x', password: '' })).status).toBe(400)
    for (const u of ['bob', 'box', 'carl', 'dora']) expect((await a.call('POST', '/api/users', { username: u, password: 'pw' })).status).toBe(201)

    const p1 = await a.call('GET', '/api/users?limit=2')
    expect(p1.body.users.map((u: any) => u.username)).toEqual(['ann', 'bob'])
    expect(p1.body.next).toBe('bob')
    const p2 = await a.call('GET', `/api/users?limit=2&after=${p1.body.next}`)
    expect(p2.body.users.map((u: any) => u.username)).toEqual(['box', 'carl'])
    const p3 = await a.call('GET', `/api/users?limit=2&after=${p2.body.next}`)
    expect(p3.body).toMatchObject({ next: null })
    expect(p3.body.users.map((u: any) => u.username)).toEqual(['dora'])
    expect((await a.call('GET', '/api/users?prefix=bo')).body.users.map((u: any) => u.username)).toEqual(['bob', 'box'])
    expect((await a.call('GET', '/api/users?limit=0')).status).toBe(400)
    expect(JSON.stringify(p1.body)).not.toMatch(/verifier|encPriv|salt/)
  })

  it('gets and deletes a user', async (t) => {
    const a = await adminApi(t)
    await a.call('POST', '/api/users', { username: 'ann', password: 'pw' })
    expect((await a.call('GET', '/api/users/ann')).body.username).toBe('ann')
    expect(await a.call('DELETE', '/api/users/ann')).toMatchObject({ status: 200, body: { deleted: 'ann' } })
    const gone = await a.call('GET', '/api/users/ann')
    expect([gone.status, gone.body.error.code]).toEqual([404, 'PANEL_NOT_FOUND'])
    expect((await a.call('DELETE', '/api/users/ann')).status).toBe(404)
  })

  it('lists devices and drops one without bumping tokenVersion', async (t) => {
    const a = await adminApi(t)
    await a.call('POST', '/api/users', { username: 'ann', password: 'pw' })
    const tv = await enroll(a, 'ann', 'tv')
    const phone = await enroll(a, 'ann', 'phone')
    const devices = await a.call('GET', '/api/users/ann/devices')
    expect(devices.body.devices.map((d: any) => [d.deviceId, d.label])).toEqual([[tv, 'tv'], [phone, 'phone']])
    expect((await a.call('DELETE', `/api/users/ann/devices/${tv}`)).body).toEqual({ deleted: tv })
    const after = (await a.call('GET', '/api/users/ann')).body
    expect(after.devices.map((d: any) => d.deviceId)).toEqual([phone])
    expect(after.tokenVersion).toBe(0)
    expect((await a.call('DELETE', `/api/users/ann/devices/${tv}`)).status).toBe(404)
  })

  it('logout-all bumps tokenVersion and keeps the enrolled devices (dropping one is DELETE …/devices/:deviceId)', async (t) => {
    const a = await adminApi(t)
    await a.call('POST', '/api/users', { username: 'ann', password: 'pw' })
    const tv = await enroll(a, 'ann', 'tv')
    const phone = await enroll(a, 'ann', 'phone')
    const out = await a.call('POST', '/api/users/ann/logout-all')
    expect(out.status).toBe(200)
    expect(out.body.tokenVersion).toBe(1)
    // Still enrolled, under the old version: each fails its next online check.
    expect(out.body.devices.map((d: any) => [d.deviceId, d.tokenVersion])).toEqual([[tv, 0], [phone, 0]])
    expect((await a.call('GET', '/api/users/ann/devices')).body.devices.map((d: any) => d.deviceId)).toEqual([tv, phone])
    expect((await a.call('DELETE', `/api/users/ann/devices/${tv}`)).body).toEqual({ deleted: tv })
    expect((await a.call('GET', '/api/users/ann')).body).toMatchObject({ tokenVersion: 1, devices: [expect.objectContaining({ deviceId: phone })] })
  })

  it('rotates a password (re-sealing grants), sets status, logs out everywhere and sets max-devices', async (t) => {
    const a = await adminApi(t)
    await a.call('POST', '/api/users', { username: 'ann', password: 'pw' })
    await a.call('POST', '/api/streams', { id: 'news' })
    await a.call('POST', '/api/users/ann/grants', { streamId: 'news' })
    const before = await a.opened.ctx.catalog.getUser('ann')

    const rotated = await a.call('POST', '/api/users/ann/password', { password: 'pw2' })
    expect(rotated.body).toMatchObject({ tokenVersion: 1, grants: ['news'] })
    const after = await a.opened.ctx.catalog.getUser('ann')
    expect(after!.pub).not.toBe(before!.pub)
    expect(after!.wrapped.news).not.toBe(before!.wrapped.news)

    expect((await a.call('POST', '/api/users/ann/status', { status: 'disabled' })).body).toMatchObject({ status: 'disabled', tokenVersion: 2 })
    expect((await a.call('POST', '/api/users/ann/status', { status: 'active' })).body).toMatchObject({ status: 'active', tokenVersion: 2 })
    expect((await a.call('POST', '/api/users/ann/status', { status: 'paused' })).status).toBe(400)

    expect((await a.call('POST', '/api/users/ann/logout-all')).body).toMatchObject({ tokenVersion: 3 })

    expect((await a.call('POST', '/api/users/ann/max-devices', { maxDevices: 2 })).body).toMatchObject({ maxDevices: 2, tokenVersion: 4 })
    expect((await a.call('POST', '/api/users/ann/max-devices', { maxDevices: 0 })).status).toBe(400)
    expect((await a.call('POST', '/api/users/ann/max-devices', { count: 2 })).status).toBe(400)
    expect((await a.call('POST', '/api/users/nobody/logout-all')).status).toBe(404)
  })

  it('grants and removes grants', async (t) => {
    const a = await adminApi(t)
    await a.call('POST', '/api/users', { username: 'ann', password: 'pw' })
    await a.call('POST', '/api/streams', { id: 'news' })
    expect((await a.call('POST', '/api/users/ann/grants', { streamId: 'news' })).body).toEqual({ changed: true })
    expect((await a.call('POST', '/api/users/ann/grants', { streamId: 'news' })).body).toEqual({ changed: false })
    expect((await a.call('GET', '/api/users/ann')).body).toMatchObject({ grants: ['news'], manualGrants: ['news'] })
    expect((await a.call('POST', '/api/users/ann/grants', { streamId: 'ghost' })).status).toBe(404)
    expect((await a.call('DELETE', '/api/users/ann/grants/news')).body).toEqual({ changed: true, stillGranted: false, coveredBy: [] })
    expect((await a.call('DELETE', '/api/users/ann/grants/news')).body).toEqual({ changed: false, stillGranted: false, coveredBy: [] })
    expect((await a.call('GET', '/api/users/ann')).body.grants).toEqual([])
  })
})
