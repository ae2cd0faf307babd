package app.arus.sdk

/**
 * The player's logic as a pure state machine: the React Native binding's ArusVideo
 * (packages/react-native/src/video.tsx) input for input, with the same timings. Inputs are
 * [attach], engine messages, player events and [setPaused]; outputs are [PlayerEffect]s given
 * to [emit]. It tunes with Play(streamId), follows the engine's tune phases per monotonic tune
 * id, rebuilds the player on feed-changed, and heals a frozen live edge: still for
 * [PlayerInit.stallTimeoutMs] while playing, a resync Mount at the live edge; still for another
 * window, Reconnect plus a Mount; still again, the ladder starts over. Vod titles get transport
 * controls and none of the live-edge machinery.
 *
 * Not thread-safe: call it from one thread ([PlayerSession] posts everything to its loop).
 */
class ArusPlayerController(
    private val clock: PlayerClock,
    private val init: PlayerInit = PlayerInit(),
    private val emit: (PlayerEffect) -> Unit,
) {
    private enum class Heal { IDLE, RESYNC, RECONNECT }
    private data class Playing(val url: String, val mediaType: MediaType)

    /** The attached stream, or null. */
    var streamId: String? = null
        private set
    /** The current tune's id (monotonic, from 1). */
    var tuneId: Int = 0
        private set
    private var tuneEnded = true
    private var tunePhase = TunePhase.START
    private var playing: Playing? = null
    private var mount = 0
    private var paused = init.paused
    private var lastTime = -1.0
    private var lastAdvanceAt = 0L
    private var heal = Heal.IDLE
    private var healAt = 0L
    private var ticker: Cancellable? = null

    /** The ladder's check period (RN: clamp(stallMs / 4, 250, 1000)). */
    val tickMs: Long = maxOf(250L, minOf(1000L, init.stallTimeoutMs / 4))

    /** A new tune for [streamId] (the same id again is no new tune, as in RN). */
    fun attach(streamId: String) {
        if (streamId == this.streamId) return
        stopTicker()
        this.streamId = streamId
        tuneId += 1
        tuneEnded = false
        if (playing != null) { playing = null; emit(PlayerEffect.Unmount) }
        lastTime = -1.0
        lastAdvanceAt = clock.now()
        heal = Heal.IDLE
        healAt = 0L
        phase(TunePhase.START)
        emit(PlayerEffect.Play(streamId))
    }

    /** Stops following the stream (the view went away). */
    fun detach() {
        stopTicker()
        streamId = null
        tuneEnded = true
        if (playing != null) { playing = null; emit(PlayerEffect.Unmount) }
    }

    fun onEngineMessage(msg: EngineMessage) {
        val id = streamId ?: return
        when (msg) {
            is EngineMessage.Status -> {
                if (msg.streamId != id) return
                when {
                    msg.state == "playing" && msg.url != null -> confirmed(id, msg)
                    msg.state == "feed:retune" -> phase(TunePhase.RETUNE)
                    msg.state == "feed:reconnect" -> phase(TunePhase.RECONNECT)
                    msg.state == "peers" && msg.peers != null -> emit(PlayerEffect.Peers(msg.peers))
                }
            }
            is EngineMessage.Error -> {
                if (msg.streamId != id) return
                emit(PlayerEffect.Error(VideoError(msg.code, msg.message, id)))
                if (msg.code == "SDK_TUNE_TIMEOUT" || msg.cmd == "play") tuneEnded = true
            }
            is EngineMessage.FeedChanged -> {
                if (msg.streamId != id) return
                mount += 1
                playing?.let { emit(mountOf(id, it, MountReason.FEED_CHANGED)) }
                lastAdvanceAt = clock.now()
                emit(PlayerEffect.FeedChanged(FeedChangedEvent(id, msg.feedKey, msg.url)))
            }
            else -> {}
        }
    }

    /** The player's playhead, in seconds (RN onProgress currentTime). A move proves playback. */
    fun onProgress(positionSec: Double) {
        if (playing == null) return
        if (positionSec != lastTime) {
            lastTime = positionSec
            lastAdvanceAt = clock.now()
            heal = Heal.IDLE
            phase(TunePhase.PLAYING)
        }
    }

    fun onBuffering(buffering: Boolean) {
        if (playing != null) emit(PlayerEffect.Buffering(buffering))
    }

    /** The platform player failed; [detail] is cut to 500 characters, as in RN. */
    fun onPlayerError(detail: String) {
        val id = streamId ?: return
        if (playing != null) emit(PlayerEffect.Error(VideoError(HostErrorCodes.PLAYER_ERROR, detail.take(500), id)))
    }

    /** A paused player never counts as stalled. */
    fun setPaused(paused: Boolean) {
        if (paused == this.paused) return
        this.paused = paused
        if (playing != null) emit(PlayerEffect.Paused(paused))
        updateTicker()
    }

    private fun confirmed(id: String, msg: EngineMessage.Status) {
        val next = Playing(msg.url!!, msg.mediaType ?: MediaType.LIVE)
        if (next != playing) {
            playing = next
            emit(mountOf(id, next, MountReason.SOURCE))
        }
        emit(PlayerEffect.Source(SourceEvent(id, next.url, msg.source ?: StreamSource.P2P, next.mediaType)))
        updateTicker()
    }

    private fun mountOf(id: String, p: Playing, reason: MountReason) = PlayerEffect.Mount(
        streamId = id, url = p.url, mediaType = p.mediaType, mount = mount, reason = reason,
        controls = init.controls ?: (p.mediaType != MediaType.LIVE), paused = paused, bufferPolicy = init.bufferPolicy,
    )

    private fun phase(p: TunePhase) {
        if (tuneEnded) return
        tunePhase = p
        if (p == TunePhase.PLAYING) tuneEnded = true
        emit(PlayerEffect.Tune(TuneEvent(tuneId, streamId!!, p)))
    }

    /** The ladder runs while a live stream is shown and not paused; (re)arming it restarts the window. */
    private fun updateTicker() {
        val run = playing?.mediaType == MediaType.LIVE && !paused
        if (run && ticker == null) {
            lastAdvanceAt = clock.now()
            ticker = clock.every(tickMs) { tick() }
        } else if (!run) {
            stopTicker()
        }
    }

    private fun stopTicker() {
        ticker?.cancel()
        ticker = null
    }

    private fun tick() {
        val id = streamId ?: return
        val p = playing ?: return
        if (!tuneEnded || tunePhase != TunePhase.PLAYING) return
        val now = clock.now()
        val window = init.stallTimeoutMs
        if (heal == Heal.IDLE && now - lastAdvanceAt >= window) {
            heal = Heal.RESYNC
            healAt = now
            emit(PlayerEffect.Stall(StallEvent(id, now - lastAdvanceAt)))
            mount += 1
            emit(mountOf(id, p, MountReason.RESYNC))
        } else if (heal == Heal.RESYNC && now - healAt >= window) {
            heal = Heal.RECONNECT
            healAt = now
            emit(PlayerEffect.Reconnect)
            mount += 1
            emit(mountOf(id, p, MountReason.RECONNECT))
        } else if (heal == Heal.RECONNECT && now - healAt >= window) {
            heal = Heal.IDLE
            lastAdvanceAt = now
        }
    }
}
