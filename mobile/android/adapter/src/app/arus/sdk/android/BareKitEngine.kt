package app.arus.sdk.android

import android.content.Context
import app.arus.sdk.EngineLauncher
import app.arus.sdk.EngineSink
import app.arus.sdk.EngineTransport
import java.io.File
import java.nio.ByteBuffer
import to.holepunch.bare.kit.IPC
import to.holepunch.bare.kit.Worklet

// NOT COMPILED OR TESTED HERE: this adapter needs the Android SDK and Bare Kit (see mobile/android/README.md).

/**
 * The engine class on Android: the engine bundle (the app's asset `arus-engine.bundle`, built
 * with `bundle-worklet.mjs --linked --host android-arm64 ...`) in a Bare Kit worklet, its IPC
 * as the transport. Loaded by name (ArusAndroid.ENGINE_CLASS) only by a start on API 29+.
 * Written against Bare Kit's Android API (Worklet(Options), start(filename, ByteBuffer,
 * String[]), IPC(worklet), read(callback), write(ByteBuffer, callback)).
 */
class BareKitEngine : EngineLauncher {
    override fun launch(context: Any?, args: List<String>, sink: EngineSink): EngineTransport {
        val ctx = context as Context
        val bundle = ctx.assets.open(BUNDLE_ASSET).use { it.readBytes() }
        val argv = if ("--data" in args) args else args + listOf("--data", File(ctx.filesDir, "arus-engine").path)
        val worklet = Worklet(Worklet.Options())
        worklet.start("/$BUNDLE_ASSET", ByteBuffer.wrap(bundle), argv.toTypedArray())
        return Transport(worklet, IPC(worklet), sink)
    }

    private class Transport(private val worklet: Worklet, private val ipc: IPC, private val sink: EngineSink) : EngineTransport {
        private val queue = ArrayDeque<ByteArray>()
        private var writing = false
        private var closing = false
        private var ended = false

        init { read() }

        private fun read() {
            ipc.read { data, _ ->
                if (data == null) { end(); return@read }
                val bytes = ByteArray(data.remaining()).also { data.get(it) }
                sink.onData(bytes, 0, bytes.size)
                read()
            }
        }

        // One write at a time: a line must not interleave with the next.
        override fun write(bytes: ByteArray) {
            synchronized(this) {
                if (closing) return
                queue.addLast(bytes)
                if (!writing) next()
            }
        }

        private fun next() {
            val bytes = queue.removeFirstOrNull()
            if (bytes == null) { writing = false; if (closing) terminate(); return }
            writing = true
            ipc.write(ByteBuffer.wrap(bytes)) { synchronized(this) { next() } }
        }

        /** After the queued lines (the stop command) went out, the worklet is terminated. */
        override fun close() {
            synchronized(this) {
                if (closing) return
                closing = true
                if (!writing) terminate()
            }
        }

        private fun terminate() {
            ipc.close()
            worklet.terminate()
            end()
        }

        private fun end() {
            synchronized(this) {
                if (ended) return
                ended = true
            }
            sink.onClosed(null)
        }
    }

    companion object {
        const val BUNDLE_ASSET = "arus-engine.bundle"
    }
}
