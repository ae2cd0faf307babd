package app.arus.sdk

import java.util.concurrent.CopyOnWriteArrayList
import java.util.concurrent.TimeUnit
import org.junit.Assert.assertEquals
import org.junit.Assert.assertFalse
import org.junit.Assert.assertNotNull
import org.junit.Assert.assertTrue
import org.junit.Assume.assumeTrue
import org.junit.Test

/**
 * The Kotlin core against the real engine: `bare arus-engine.bundle` as a child process on a
 * local testnet with a real panel and broadcaster (test/mobile/android.test.ts sets them up and
 * passes them in the environment). Not a unit test: scripts/test.sh does not run it.
 */
class EngineIntegration {
    private fun env(name: String): String = System.getenv(name) ?: error("$name is not set")

    private fun waitFor(what: String, timeoutMs: Long, ok: () -> Boolean) {
        val end = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMs)
        while (!ok()) {
            check(System.nanoTime() < end) { "no $what within $timeoutMs ms" }
            Thread.sleep(50)
        }
    }

    @Test
    fun `starts the engine under Bare, logs in, plays a channel ffmpeg decodes, and stops it`() {
        assumeTrue("run by test/mobile/android.test.ts", System.getenv("ARUS_BARE") != null)
        val password = env("ARUS_PASSWORD")
        val streamId = env("ARUS_STREAM_ID")
        val stderr = CopyOnWriteArrayList<String>()
        val engine = ProcessEngine(env("ARUS_BARE"), env("ARUS_BUNDLE"), onStderr = { stderr.add(it) })
        val warnings = CopyOnWriteArrayList<HostWarning>()
        val backend = ArusBackend(BackendInit(DeviceInfo(34, true), EngineRef.Factory { engine }) { warnings.add(it) })
        val messages = CopyOnWriteArrayList<EngineMessage>()
        backend.onMessage { messages.add(it) }
        val loop = ExecutorLoop()
        try {
            val bootstrap = env("ARUS_BOOTSTRAP").split(',').map { HostPort(it.substringBeforeLast(':'), it.substringAfterLast(':').toInt()) }
            backend.start(null, StartOptions(env("ARUS_PANEL_KEY"), swarm = SwarmOptions(bootstrap = bootstrap), tune = TuneOptions(timeoutMs = 30_000), dataDir = env("ARUS_DATA_DIR")))
            waitFor("port", 30_000) { backend.port != null }
            waitFor("ready", 30_000) { messages.any { it is EngineMessage.Status && it.state == "ready" } }
            assertTrue(messages.any { it is EngineMessage.Prefs }) // the boot prefs message
            backend.login(env("ARUS_USERNAME"), password)
            waitFor("logged-in", 90_000) {
                messages.firstOrNull { it is EngineMessage.LoginError }?.let { error("login failed: $it") }
                messages.any { it is EngineMessage.Status && it.state == "logged-in" }
            }
            assertTrue(backend.streams.map { it.id }.contains(streamId))

            // Played the way ArusPlayerView does: the session tunes through the backend, the
            // engine's confirmation mounts the player on the local URL.
            val mounts = CopyOnWriteArrayList<PlayerEffect.Mount>()
            val tunes = CopyOnWriteArrayList<TuneEvent>()
            val surface = object : PlayerSurface {
                override fun mount(effect: PlayerEffect.Mount) { mounts.add(effect) }
                override fun unmount() {}
                override fun setPaused(paused: Boolean) {}
            }
            val session = PlayerSession(backend, surface, object : ArusPlayerListener {
                override fun onTune(event: TuneEvent) { tunes.add(event) }
            }, loop)
            session.attach(streamId)
            waitFor("the engine-confirmed play", 90_000) { backend.activeStreamId == streamId && mounts.isNotEmpty() }
            val mount = mounts.first()
            assertEquals(backend.url, mount.url)
            assertTrue(mount.url, Regex("""^http://127\.0\.0\.1:${backend.port}/index\.m3u8$""").matches(mount.url))
            assertEquals(listOf(MediaType.LIVE, StreamSource.P2P), listOf(mount.mediaType, backend.source))
            assertEquals(TuneEvent(1, streamId, TunePhase.START), tunes.first())

            val ffmpeg = ProcessBuilder("ffmpeg", "-hide_banner", "-v", "error", "-i", mount.url, "-t", "2", "-f", "null", "-")
                .redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.PIPE).start()
            val out = StringBuilder()
            val reader = Thread { ffmpeg.inputStream.bufferedReader().forEachLine { out.appendLine(it) } }.apply { isDaemon = true; start() }
            if (!ffmpeg.waitFor(90, TimeUnit.SECONDS)) { ffmpeg.destroyForcibly(); error("ffmpeg did not finish in 90 s") }
            reader.join(5_000)
            assertEquals("ffmpeg: $out", 0, ffmpeg.exitValue())

            session.detach()
            backend.stop()
            val process = engine.last
            assertNotNull(process)
            assertEquals("engine exit code", 0, process!!.awaitExit(20_000))
            assertTrue("warnings: $warnings", warnings.isEmpty())
            assertFalse(stderr.joinToString("\n").contains(password))
            println("integration: played $streamId at ${mount.url}")
        } finally {
            loop.close()
            engine.last?.kill()
        }
    }
}
