package app.arus.sdk

import java.util.concurrent.Executors
import java.util.concurrent.ScheduledExecutorService
import java.util.concurrent.TimeUnit

/** The platform player a session drives (the adapter: a Media3 ExoPlayer in a PlayerView). */
interface PlayerSurface {
    /** Release any current player and build a fresh one on the effect's URL and buffer policy. */
    fun mount(effect: PlayerEffect.Mount)
    fun unmount()
    fun setPaused(paused: Boolean)
}

/** The host's callbacks (RN props onTune, onPeers, ...); all optional. Run on the session's loop. */
interface ArusPlayerListener {
    fun onTune(event: TuneEvent) {}
    fun onPeers(peers: Int) {}
    fun onBuffering(buffering: Boolean) {}
    fun onSource(event: SourceEvent) {}
    /** Friendly failures, the tune timeout included (it ends the tune). */
    fun onError(error: VideoError) {}
    /** Informational: the session already rebuilt the player on the new feed. */
    fun onFeedChanged(event: FeedChangedEvent) {}
    fun onStall(event: StallEvent) {}
}

/**
 * Binds an [ArusPlayerController] to a backend, a [PlayerSurface] and the host's listener, on
 * one [PlayerLoop] thread: what ArusPlayerView.attach(backend, streamId) does on Android. Engine
 * messages arrive on the backend's reader thread and are posted to the loop; the surface
 * reports player events through [onProgress], [onBuffering] and [onPlayerError] on the loop.
 */
class PlayerSession(
    private val backend: PlayerBackend,
    private val surface: PlayerSurface,
    private val listener: ArusPlayerListener,
    private val loop: PlayerLoop,
    init: PlayerInit = PlayerInit(),
) {
    private val controller = ArusPlayerController(loop, init, ::apply)
    private var subscription: Subscription? = null

    /** Tunes to [streamId]: subscribes to the backend and asks the engine to play it. */
    fun attach(streamId: String) = loop.post {
        if (streamId == controller.streamId) return@post
        subscription?.cancel()
        subscription = backend.onMessage { msg -> loop.post { controller.onEngineMessage(msg) } }
        controller.attach(streamId)
    }

    /** Unsubscribes and releases the player (the view was detached). */
    fun detach() = loop.post {
        subscription?.cancel()
        subscription = null
        controller.detach()
    }

    fun onProgress(positionSec: Double) = loop.post { controller.onProgress(positionSec) }
    fun onBuffering(buffering: Boolean) = loop.post { controller.onBuffering(buffering) }
    fun onPlayerError(detail: String) = loop.post { controller.onPlayerError(detail) }
    fun setPaused(paused: Boolean) = loop.post { controller.setPaused(paused) }

    private fun apply(effect: PlayerEffect) {
        when (effect) {
            is PlayerEffect.Play -> backend.play(effect.streamId)
            PlayerEffect.Reconnect -> backend.reconnect()
            is PlayerEffect.Mount -> surface.mount(effect)
            PlayerEffect.Unmount -> surface.unmount()
            is PlayerEffect.Paused -> surface.setPaused(effect.paused)
            is PlayerEffect.Tune -> listener.onTune(effect.event)
            is PlayerEffect.Source -> listener.onSource(effect.event)
            is PlayerEffect.Peers -> listener.onPeers(effect.peers)
            is PlayerEffect.Buffering -> listener.onBuffering(effect.buffering)
            is PlayerEffect.Error -> listener.onError(effect.error)
            is PlayerEffect.FeedChanged -> listener.onFeedChanged(effect.event)
            is PlayerEffect.Stall -> listener.onStall(effect.event)
        }
    }
}

/** A [PlayerLoop] on one JVM thread (desktop hosts and tests; Android uses its main looper). */
class ExecutorLoop : PlayerLoop, AutoCloseable {
    private val executor: ScheduledExecutorService = Executors.newSingleThreadScheduledExecutor { r ->
        Thread(r, "arus-player").apply { isDaemon = true }
    }

    override fun now(): Long = System.nanoTime() / 1_000_000
    override fun post(task: () -> Unit) { executor.execute(task) }

    override fun every(periodMs: Long, task: () -> Unit): Cancellable {
        val f = executor.scheduleAtFixedRate(task, periodMs, periodMs, TimeUnit.MILLISECONDS)
        return Cancellable { f.cancel(false) }
    }

    override fun close() { executor.shutdownNow() }
}
