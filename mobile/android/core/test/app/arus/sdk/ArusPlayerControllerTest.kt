package app.arus.sdk

import org.junit.Assert.assertEquals
import org.junit.Assert.assertTrue
import org.junit.Test

/**
 * The player controller as a state machine on a virtual clock: the cases of the React Native
 * binding's video.test.ts, input for input (packages/react-native/test/video.test.ts).
 */
class ArusPlayerControllerTest {
    private val clock = VirtualClock()
    private val effects = mutableListOf<PlayerEffect>()
    private fun controller(init: PlayerInit = PlayerInit()) = ArusPlayerController(clock, init) { effects.add(it) }

    private val url = "http://127.0.0.1:4000/index.m3u8"
    private fun playing(id: String, mediaType: MediaType = MediaType.LIVE) =
        EngineMessage.Status("playing", id, url, StreamSource.P2P, mediaType, "k")
    private fun status(state: String, id: String?, peers: Int? = null) = EngineMessage.Status(state, id, peers = peers)

    private inline fun <reified T : PlayerEffect> all(): List<T> = effects.filterIsInstance<T>()
    private fun tunes() = all<PlayerEffect.Tune>().map { "${it.event.tuneId}:${it.event.phase.wire}" }
    private fun mounts() = all<PlayerEffect.Mount>()
    private fun stalls() = all<PlayerEffect.Stall>()
    private fun reconnects() = effects.count { it == PlayerEffect.Reconnect }

    @Test
    fun `a normal tune - start, then playing once the playhead moves, source and peers from the engine`() {
        val c = controller()
        c.attach("news")
        assertEquals(listOf(PlayerEffect.Tune(TuneEvent(1, "news", TunePhase.START)), PlayerEffect.Play("news")), effects)
        assertTrue(mounts().isEmpty()) // nothing to show before the engine confirms
        c.onEngineMessage(status("feed:open", "news"))
        c.onEngineMessage(playing("news"))
        val mount = mounts().single()
        assertEquals(listOf("news", url, MediaType.LIVE, MountReason.SOURCE, false, false), listOf(mount.streamId, mount.url, mount.mediaType, mount.reason, mount.controls, mount.paused))
        assertEquals(listOf(SourceEvent("news", url, StreamSource.P2P, MediaType.LIVE)), all<PlayerEffect.Source>().map { it.event })
        c.onEngineMessage(status("peers", "news", peers = 3))
        c.onEngineMessage(status("peers", "other", peers = 9))
        c.onProgress(0.4)
        c.onProgress(0.8)
        assertEquals(listOf("1:start", "1:playing"), tunes())
        assertEquals(listOf(3), all<PlayerEffect.Peers>().map { it.peers })
        c.onEngineMessage(playing("news")) // the same confirmation again: no rebuild
        assertEquals(1, mounts().size)
    }

    @Test
    fun `a retune and a reconnect show as phases before playing, a new stream id is a new tune`() {
        val c = controller()
        c.attach("news")
        c.onEngineMessage(status("feed:retune", "news"))
        c.onEngineMessage(status("feed:reconnect", "news"))
        c.onEngineMessage(playing("news"))
        c.onProgress(1.0)
        assertEquals(listOf("1:start", "1:retune", "1:reconnect", "1:playing"), tunes())
        c.attach("news") // the same stream: no new tune
        c.attach("sports")
        assertEquals(listOf(PlayerEffect.Play("news"), PlayerEffect.Play("sports")), all<PlayerEffect.Play>())
        assertEquals(TuneEvent(2, "sports", TunePhase.START), all<PlayerEffect.Tune>().last().event)
        assertEquals(PlayerEffect.Unmount, effects[effects.size - 3]) // the old stream's player goes first
        c.onEngineMessage(status("feed:retune", "news")) // the old stream's news are not this tune's
        c.onEngineMessage(playing("news"))
        assertEquals(listOf("1:start", "1:retune", "1:reconnect", "1:playing", "2:start"), tunes())
        assertEquals(1, mounts().size)
    }

    @Test
    fun `the friendly timeout arrives as an error and ends the tune`() {
        val c = controller()
        c.attach("news")
        c.onEngineMessage(status("feed:retune", "news"))
        c.onEngineMessage(EngineMessage.Error("SDK_TUNE_TIMEOUT", "x", streamId = "other"))
        c.onEngineMessage(EngineMessage.Error("SDK_TUNE_TIMEOUT", "could not tune in", "play", streamId = "news"))
        c.onEngineMessage(status("feed:reconnect", "news"))
        assertEquals(listOf(VideoError("SDK_TUNE_TIMEOUT", "could not tune in", "news")), all<PlayerEffect.Error>().map { it.error })
        assertEquals(listOf("1:start", "1:retune"), tunes())
    }

    @Test
    fun `a failed play command ends the tune too, a new tune starts fresh`() {
        val c = controller()
        c.attach("nope")
        c.onEngineMessage(EngineMessage.Error("SDK_NOT_ENTITLED", "not entitled to nope", "play", 4, "nope"))
        c.onEngineMessage(status("feed:retune", "nope"))
        c.attach("news")
        assertEquals(listOf("1:start", "2:start"), tunes())
    }

    @Test
    fun `a frozen live edge - a stall and a resync at the live edge after the window, then a backend reconnect if it still does not play`() {
        val c = controller(PlayerInit(stallTimeoutMs = 12_000))
        c.attach("news")
        c.onEngineMessage(playing("news"))
        c.onProgress(1.0)
        clock.advance(11_000)
        assertTrue(stalls().isEmpty())
        clock.advance(1_500)
        val stall = stalls().single().event
        assertEquals("news", stall.streamId)
        assertTrue(stall.stalledMs >= 12_000)
        assertEquals(listOf(MountReason.SOURCE, MountReason.RESYNC), mounts().map { it.reason })
        assertEquals(0, reconnects())
        clock.advance(12_500)
        assertEquals(1, reconnects())
        assertEquals(listOf(MountReason.SOURCE, MountReason.RESYNC, MountReason.RECONNECT), mounts().map { it.reason })
        assertEquals(listOf(0, 1, 2), mounts().map { it.mount })
        assertEquals(1, stalls().size) // one heal, escalated
        // It plays again: the ladder resets and stays quiet while the playhead moves.
        for (s in 2 until 40) { c.onProgress(s.toDouble()); clock.advance(1_000) }
        assertEquals(1, reconnects())
        assertEquals(1, stalls().size)
    }

    @Test
    fun `the ladder starts over after a reconnect window without playback, and a resync that plays never escalates`() {
        val c = controller()
        c.attach("news")
        c.onEngineMessage(playing("news"))
        c.onProgress(1.0)
        clock.advance(24_000) // resync at 12 s, reconnect at 24 s
        assertEquals(1, reconnects())
        clock.advance(12_000) // the reconnect window passes: back to idle, a fresh window
        clock.advance(11_000)
        assertEquals(1, stalls().size)
        clock.advance(1_000)
        assertEquals(2, stalls().size)
        c.onProgress(2.0) // the resync plays
        clock.advance(11_000)
        assertEquals(1, reconnects())
    }

    @Test
    fun `no stall before the tune plays, and a paused player never counts as stalled`() {
        val c = controller(PlayerInit(paused = true))
        c.attach("news")
        c.onEngineMessage(playing("news"))
        c.onProgress(1.0)
        clock.advance(60_000)
        assertTrue(stalls().isEmpty())
        assertTrue(mounts().single().paused)
        c.setPaused(false)
        assertEquals(PlayerEffect.Paused(false), effects.last())
        clock.advance(12_000)
        assertEquals(1, stalls().size) // unpaused: the window starts when it resumes

        c.detach()
        val d = ArusPlayerController(clock, PlayerInit()) { effects.add(it) }
        effects.clear()
        d.attach("sports")
        d.onEngineMessage(playing("sports"))
        clock.advance(60_000) // confirmed, but the playhead never moved: still tuning, no self-heal
        assertTrue(stalls().isEmpty())
        assertEquals(listOf("1:start"), tunes())
    }

    @Test
    fun `feed-changed rebuilds the player on the same URL, tells the host, and restarts the stall window`() {
        val c = controller()
        c.attach("news")
        c.onEngineMessage(playing("news"))
        c.onProgress(1.0)
        c.onEngineMessage(EngineMessage.FeedChanged("other", "x", url))
        assertEquals(1, mounts().size)
        clock.advance(10_000)
        c.onEngineMessage(EngineMessage.FeedChanged("news", "k2", url))
        assertEquals(listOf(MountReason.SOURCE, MountReason.FEED_CHANGED), mounts().map { it.reason })
        assertEquals(url, mounts().last().url)
        assertEquals(1, mounts().last().mount)
        assertEquals(listOf(FeedChangedEvent("news", "k2", url)), all<PlayerEffect.FeedChanged>().map { it.event })
        clock.advance(10_000)
        assertTrue(stalls().isEmpty()) // 20 s since the last advance, 10 s since the rotation
        clock.advance(2_000)
        assertEquals(1, stalls().size)
    }

    @Test
    fun `a vod title gets transport controls and no live-edge machinery`() {
        val c = controller()
        c.attach("vod.film")
        c.onEngineMessage(playing("vod.film", MediaType.VOD))
        c.onProgress(1.0)
        clock.advance(120_000)
        assertTrue(stalls().isEmpty())
        assertEquals(0, reconnects())
        assertEquals(1, mounts().size)
        assertTrue(mounts().single().controls)
        assertEquals(0, clock.armed) // no ladder timer at all
        c.setPaused(true)
        clock.advance(600_000) // indefinite pause
        assertEquals(0, reconnects())
    }

    @Test
    fun `live - no controls by default, the zap-tuned buffer starts at about 1 s, host overrides, buffering and player errors`() {
        val c = controller(PlayerInit(bufferPolicy = BufferPolicy.ZAP.copy(maxBufferMs = 30_000)))
        c.attach("news")
        c.onBuffering(true) // nothing shown yet
        c.onEngineMessage(playing("news"))
        val m = mounts().single()
        assertEquals(false, m.controls)
        assertEquals(BufferPolicy(4_000, 30_000, 1_000, 2_000), m.bufferPolicy)
        assertEquals(1_000, BufferPolicy.ZAP.bufferForPlaybackMs)
        c.onBuffering(true)
        assertEquals(listOf(true), all<PlayerEffect.Buffering>().map { it.buffering })
        c.onPlayerError("E".repeat(600))
        val err = all<PlayerEffect.Error>().single().error
        assertEquals(listOf(HostErrorCodes.PLAYER_ERROR, 500, "news"), listOf(err.code, err.message.length, err.streamId))
        assertTrue(controller(PlayerInit(controls = true)).let { d -> d.attach("x"); d.onEngineMessage(playing("x")); mounts().last().controls })
    }

    @Test
    fun `the check period is a quarter of the window, between 250 ms and 1 s, detach releases the player and the timer`() {
        assertEquals(1_000, controller().tickMs)
        assertEquals(500, controller(PlayerInit(stallTimeoutMs = 2_000)).tickMs)
        assertEquals(250, controller(PlayerInit(stallTimeoutMs = 400)).tickMs)
        val c = controller()
        c.attach("news")
        c.onEngineMessage(playing("news"))
        assertEquals(1, clock.armed)
        c.detach()
        assertEquals(0, clock.armed)
        assertEquals(PlayerEffect.Unmount, effects.last())
        c.onEngineMessage(playing("news"))
        assertEquals(1, mounts().size)
    }
}
