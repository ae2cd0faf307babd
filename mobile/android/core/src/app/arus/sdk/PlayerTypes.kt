package app.arus.sdk

/** Spec 3 "Limits": a live playhead still this long while playing starts the self-heal. */
const val DEFAULT_STALL_TIMEOUT_MS: Long = 12_000

/**
 * Zap-tuned buffering (spec 3 "Limits": playback starts at about 1 s buffered instead of about
 * 2.5 s). The four durations of Media3's DefaultLoadControl, same values as the React Native
 * binding's ZAP_BUFFER_CONFIG; hosts override fields with copy().
 */
data class BufferPolicy(
    val minBufferMs: Int = 4_000,
    val maxBufferMs: Int = 20_000,
    val bufferForPlaybackMs: Int = 1_000,
    val bufferForPlaybackAfterRebufferMs: Int = 2_000,
) {
    companion object {
        val ZAP = BufferPolicy()
    }
}

/** Player options (the React Native props that are not callbacks). */
data class PlayerInit(
    val stallTimeoutMs: Long = DEFAULT_STALL_TIMEOUT_MS,
    val bufferPolicy: BufferPolicy = BufferPolicy.ZAP,
    /** Start paused (RN: paused, or autoPlay false). */
    val paused: Boolean = false,
    /** Transport controls; null: on for vod titles, off for live channels. */
    val controls: Boolean? = null,
)

/** A tune's phase: start, then retune or reconnect (show reconnecting), then playing. */
enum class TunePhase(val wire: String) { START("start"), RETUNE("retune"), RECONNECT("reconnect"), PLAYING("playing") }

data class TuneEvent(val tuneId: Int, val streamId: String, val phase: TunePhase)
data class StallEvent(val streamId: String, val stalledMs: Long)
data class SourceEvent(val streamId: String, val url: String, val source: StreamSource, val mediaType: MediaType)
data class VideoError(val code: String, val message: String, val streamId: String)
data class FeedChangedEvent(val streamId: String, val feedKey: String, val url: String)

/** Why the player view builds a fresh player. */
enum class MountReason {
    /** The engine confirmed the stream (or its URL or media type changed). */
    SOURCE,
    /** feed-changed: the engine swapped the feed behind the same URL. */
    FEED_CHANGED,
    /** The stall ladder's first step: rebuild at the live edge. */
    RESYNC,
    /** The stall ladder's second step, together with a backend reconnect. */
    RECONNECT,
}

/** What the controller asks of the backend, the player surface and the host's listener. */
sealed class PlayerEffect {
    /** backend.play(streamId). */
    data class Play(val streamId: String) : PlayerEffect()

    /** backend.reconnect(). */
    object Reconnect : PlayerEffect()

    /** Build a fresh player on [url] (live: at the live edge). [mount] counts mounts, like RN's key. */
    data class Mount(
        val streamId: String,
        val url: String,
        val mediaType: MediaType,
        val mount: Int,
        val reason: MountReason,
        val controls: Boolean,
        val paused: Boolean,
        val bufferPolicy: BufferPolicy,
    ) : PlayerEffect()

    /** Nothing to show: release the player (a new tune before the engine confirms it). */
    object Unmount : PlayerEffect()

    data class Paused(val paused: Boolean) : PlayerEffect()
    data class Tune(val event: TuneEvent) : PlayerEffect()
    data class Source(val event: SourceEvent) : PlayerEffect()
    data class Peers(val peers: Int) : PlayerEffect()
    data class Buffering(val buffering: Boolean) : PlayerEffect()

    /** A friendly failure (the tune timeout included: it ends the tune) or a player error. */
    data class Error(val error: VideoError) : PlayerEffect()
    data class FeedChanged(val event: FeedChangedEvent) : PlayerEffect()

    /** The frozen-live-edge self-heal started. */
    data class Stall(val event: StallEvent) : PlayerEffect()
}

/** A repeating task's handle. */
fun interface Cancellable {
    fun cancel()
}

/** Time and a repeating timer: the real ones on a device, a virtual clock in tests. */
interface PlayerClock {
    fun now(): Long
    fun every(periodMs: Long, task: () -> Unit): Cancellable
}

/** A [PlayerClock] that also runs tasks in order on the player's thread (Android: the main looper). */
interface PlayerLoop : PlayerClock {
    fun post(task: () -> Unit)
}

/** The part of [ArusBackend] a player uses (RN: Pick<ArusBackend, 'onMessage' | 'play' | 'reconnect'>). */
interface PlayerBackend {
    fun onMessage(listener: MessageListener): Subscription
    fun play(streamId: String)
    fun reconnect()
}
