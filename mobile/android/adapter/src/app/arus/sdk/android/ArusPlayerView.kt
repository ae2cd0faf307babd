package app.arus.sdk.android

import android.content.Context
import android.util.AttributeSet
import android.widget.FrameLayout
import androidx.media3.common.MediaItem
import androidx.media3.common.PlaybackException
import androidx.media3.common.Player
import androidx.media3.exoplayer.DefaultLoadControl
import androidx.media3.exoplayer.ExoPlayer
import androidx.media3.ui.PlayerView
import app.arus.sdk.ArusBackend
import app.arus.sdk.ArusPlayerListener
import app.arus.sdk.PlayerEffect
import app.arus.sdk.PlayerInit
import app.arus.sdk.PlayerSession
import app.arus.sdk.PlayerSurface

// NOT COMPILED OR TESTED HERE: this adapter needs the Android SDK and Media3 (see mobile/android/README.md).

/**
 * The engine's local stream in a Media3 PlayerView (spec 3 ServicePlayerView). All behaviour is
 * the core's PlayerSession/ArusPlayerController (tested on the JVM); this view only builds an
 * ExoPlayer per Mount (the zap buffer policy, live at the live edge), releases it on Unmount,
 * and reports the playhead every 250 ms, buffering and errors back.
 */
class ArusPlayerView @JvmOverloads constructor(context: Context, attrs: AttributeSet? = null) : FrameLayout(context, attrs), PlayerSurface {
    private val view = PlayerView(context).also { addView(it, LayoutParams(LayoutParams.MATCH_PARENT, LayoutParams.MATCH_PARENT)) }
    private val loop = MainLoop()
    private var session: PlayerSession? = null
    private var sessionBackend: ArusBackend? = null
    private var player: ExoPlayer? = null
    private val progress = object : Runnable {
        override fun run() {
            player?.let { session?.onProgress(it.currentPosition / 1000.0) }
            postDelayed(this, PROGRESS_MS)
        }
    }

    /**
     * Plays [streamId] from [backend]; a new stream id is a new tune. [listener] and [init] are
     * taken at the first attach to a backend (attach to another backend starts over).
     */
    @JvmOverloads
    fun attach(backend: ArusBackend, streamId: String, listener: ArusPlayerListener = object : ArusPlayerListener {}, init: PlayerInit = PlayerInit()) {
        if (sessionBackend !== backend) detach()
        val s = session ?: PlayerSession(backend, this, listener, loop, init).also { session = it; sessionBackend = backend }
        s.attach(streamId)
    }

    fun setPaused(paused: Boolean) { session?.setPaused(paused) }

    fun detach() {
        session?.detach()
        session = null
        sessionBackend = null
    }

    override fun mount(effect: PlayerEffect.Mount) {
        release()
        val b = effect.bufferPolicy
        val load = DefaultLoadControl.Builder()
            .setBufferDurationsMs(b.minBufferMs, b.maxBufferMs, b.bufferForPlaybackMs, b.bufferForPlaybackAfterRebufferMs)
            .build()
        val p = ExoPlayer.Builder(context).setLoadControl(load).build()
        p.addListener(object : Player.Listener {
            override fun onPlaybackStateChanged(state: Int) { session?.onBuffering(state == Player.STATE_BUFFERING) }
            override fun onPlayerError(error: PlaybackException) { session?.onPlayerError("${error.errorCodeName}: ${error.message}") }
        })
        view.useController = effect.controls
        view.player = p
        p.setMediaItem(MediaItem.fromUri(effect.url))
        p.playWhenReady = !effect.paused
        p.prepare()
        player = p
        removeCallbacks(progress)
        postDelayed(progress, PROGRESS_MS)
    }

    override fun unmount() = release()

    override fun setPaused(paused: Boolean) { player?.playWhenReady = !paused }

    override fun onDetachedFromWindow() {
        detach()
        super.onDetachedFromWindow()
    }

    private fun release() {
        removeCallbacks(progress)
        view.player = null
        player?.release()
        player = null
    }

    private companion object {
        const val PROGRESS_MS = 250L
    }
}
