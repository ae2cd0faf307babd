package app.arus.sdk

import org.junit.Assert.assertEquals
import org.junit.Assert.assertTrue
import org.junit.Test

/** What ArusPlayerView.attach(backend, streamId) does, on an in-memory engine and a virtual clock. */
class PlayerSessionTest {
    private class RecordingSurface : PlayerSurface {
        val calls = mutableListOf<String>()
        override fun mount(effect: PlayerEffect.Mount) { calls.add("mount ${effect.reason} ${effect.url}") }
        override fun unmount() { calls.add("unmount") }
        override fun setPaused(paused: Boolean) { calls.add("paused $paused") }
    }

    private class RecordingListener : ArusPlayerListener {
        val events = mutableListOf<Any>()
        override fun onTune(event: TuneEvent) { events.add(event) }
        override fun onSource(event: SourceEvent) { events.add(event) }
        override fun onStall(event: StallEvent) { events.add("stall") }
        override fun onFeedChanged(event: FeedChangedEvent) { events.add(event) }
        override fun onError(error: VideoError) { events.add(error) }
    }

    private val url = "http://127.0.0.1:4000/index.m3u8"

    @Test
    fun `attach plays through the backend, the engine's confirmation mounts the player, the ladder reconnects through the backend`() {
        val m = MemoryBackend().started()
        val clock = VirtualClock()
        val surface = RecordingSurface()
        val listener = RecordingListener()
        val session = PlayerSession(m.backend, surface, listener, clock)
        session.attach("news")
        assertEquals("""{"cmd":"play","streamId":"news"}""", m.engine.written.last().trim())
        m.engine.emit("""{"type":"status","state":"playing","streamId":"news","url":"$url","source":"p2p","mediaType":"live","feedKey":"k"}""" + "\n")
        assertEquals(listOf("mount SOURCE $url"), surface.calls)
        session.onProgress(0.5)
        assertEquals(TuneEvent(1, "news", TunePhase.PLAYING), listener.events.filterIsInstance<TuneEvent>().last())
        m.engine.emit("""{"type":"feed-changed","streamId":"news","feedKey":"k2","url":"$url"}""" + "\n")
        clock.advance(24_000)
        assertEquals(listOf("mount SOURCE $url", "mount FEED_CHANGED $url", "mount RESYNC $url", "mount RECONNECT $url"), surface.calls)
        assertEquals("""{"cmd":"reconnect"}""", m.engine.written.last().trim())
        assertTrue("stall" in listener.events)
        session.setPaused(true)
        session.detach()
        assertEquals(listOf("paused true", "unmount"), surface.calls.takeLast(2))
        m.engine.emit("""{"type":"status","state":"feed:retune","streamId":"news"}""" + "\n")
        assertEquals(0, clock.armed)
    }

    @Test
    fun `switching streams drops the old subscription and the old stream's messages`() {
        val m = MemoryBackend().started()
        val listener = RecordingListener()
        val session = PlayerSession(m.backend, RecordingSurface(), listener, VirtualClock())
        session.attach("news")
        session.attach("sports")
        m.engine.emit("""{"type":"error","code":"SDK_TUNE_TIMEOUT","message":"m","streamId":"news"}""" + "\n")
        m.engine.emit("""{"type":"error","code":"SDK_NOT_BROADCASTING","message":"channel is not broadcasting right now","cmd":"play","streamId":"sports"}""" + "\n")
        assertEquals(listOf(VideoError("SDK_NOT_BROADCASTING", "channel is not broadcasting right now", "sports")), listener.events.filterIsInstance<VideoError>())
        assertEquals(2, listener.events.filterIsInstance<TuneEvent>().size)
    }
}
