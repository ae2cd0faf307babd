package app.arus.sdk

import java.io.File
import java.io.IOException
import java.io.OutputStream
import java.util.concurrent.TimeUnit

/**
 * The engine as a child process: `bare arus-engine.bundle --data <dir>` speaking the protocol on
 * stdin/stdout (docs/engine-ipc.md "Transports", desktop and tests). stderr carries the engine's
 * warnings and goes to [onStderr] line by line.
 */
class ProcessEngine(
    private val bare: String,
    private val bundle: String,
    private val workingDir: File? = null,
    private val onStderr: (String) -> Unit = {},
) : EngineLauncher {
    @Volatile
    var last: ProcessTransport? = null
        private set

    override fun launch(context: Any?, args: List<String>, sink: EngineSink): EngineTransport {
        val process = ProcessBuilder(listOf(bare, bundle) + args).directory(workingDir).start()
        return ProcessTransport(process, sink, onStderr).also { last = it }
    }
}

/** A child process's stdin (commands) and stdout (messages), read on daemon threads. */
class ProcessTransport internal constructor(
    val process: Process,
    sink: EngineSink,
    onStderr: (String) -> Unit,
) : EngineTransport {
    private val stdin: OutputStream = process.outputStream
    private var closed = false

    init {
        thread("arus-engine-stdout") {
            val buf = ByteArray(64 * 1024)
            try {
                val out = process.inputStream
                while (true) {
                    val n = out.read(buf)
                    if (n < 0) break
                    if (n > 0) sink.onData(buf, 0, n)
                }
            } catch (_: IOException) {
                // the process went away: reported below
            }
            sink.onClosed(try { process.waitFor() } catch (_: InterruptedException) { null })
        }
        thread("arus-engine-stderr") {
            try {
                process.errorStream.bufferedReader().forEachLine(onStderr)
            } catch (_: IOException) {
                // the process went away
            }
        }
    }

    override fun write(bytes: ByteArray) {
        synchronized(this) {
            if (closed) return
            try {
                stdin.write(bytes)
                stdin.flush()
            } catch (_: IOException) {
                // the engine exited; its end reaches the sink through stdout
            }
        }
    }

    override fun close() {
        synchronized(this) {
            if (closed) return
            closed = true
            try { stdin.close() } catch (_: IOException) {}
        }
    }

    /** The exit code once the process ended within [timeoutMs], else null. */
    fun awaitExit(timeoutMs: Long): Int? = if (process.waitFor(timeoutMs, TimeUnit.MILLISECONDS)) process.exitValue() else null

    /** Kills the process (teardown after a failed test). */
    fun kill() {
        process.destroyForcibly()
    }

    private fun thread(name: String, body: () -> Unit) {
        Thread(body, name).apply { isDaemon = true }.start()
    }
}
