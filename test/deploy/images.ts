import { DOCKER, must, stream } from './docker.js'

export const IMAGE = 'arus-test:runtime'
export const MEDIA = 'arus-test:media'

/** Builds both targets on the local base (layers cached across files and runs); resolves the base and the build facts. */
export async function buildImages (): Promise<{ base: string; facts: Record<string, number> }> {
  const base = (await must('bash', ['scripts/deploy-test/base.sh'], { timeoutMs: 300_000 })).stdout.trim()
  const facts: Record<string, number> = {}
  for (const [target, tag] of [['runtime', IMAGE], ['media', MEDIA]] as const) {
    const started = Date.now()
    const code = await stream(DOCKER, ['build', '-q', '-f', 'docker/Dockerfile', '--build-arg', `BASE=${base}`, '--target', target, '-t', tag, '.'], {}, 900_000)
    if (code !== 0) throw new Error(`docker build --target ${target} exited ${code}`)
    facts[`build ${target} s`] = Math.round((Date.now() - started) / 100) / 10
    facts[`size ${target} MB`] = Math.round(Number((await must(DOCKER, ['image', 'inspect', '-f', '{{.Size}}', tag])).stdout) / 1e6)
  }
  return { base, facts }
}
