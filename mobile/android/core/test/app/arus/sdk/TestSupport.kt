package app.arus.sdk

import java.io.File
import org.json.JSONArray
import org.json.JSONObject

/** A supported device (Android 14, 64-bit). */
val ANDROID_14 = DeviceInfo(34, true)

/** The repository root: -Darus.root (scripts/test.sh sets it), else found above the working dir. */
fun repoRoot(): File {
    System.getProperty("arus.root")?.let { return File(it) }
    var dir: File? = File("").absoluteFile
    while (dir != null && !File(dir, "packages/sdk/ipc-fixtures").isDirectory) dir = dir.parentFile
    return dir ?: error("run with -Darus.root=<repository root>")
}

fun fixturesDir(): File = System.getProperty("arus.fixtures")?.let(::File) ?: File(repoRoot(), "packages/sdk/ipc-fixtures")

/** A JSON file (trusted test input: org.json's own parser is fine here). */
fun readJson(file: File): JSONObject = JSONObject(file.readText())

/** org.json values as plain Kotlin (maps, lists, doubles, strings, booleans, null) for equality. */
fun plain(value: Any?): Any? = when (value) {
    null, JSONObject.NULL -> null
    is JSONObject -> value.keys().asSequence().associateWith { plain(value.opt(it)) }
    is JSONArray -> (0 until value.length()).map { plain(value.opt(it)) }
    is Number -> value.toDouble()
    else -> value
}

/** A command without its `id` (the backend's methods send none). */
fun withoutId(command: JSONObject): JSONObject = JSONObject(command.toString()).apply { remove("id") }

/** An in-memory engine: records what the backend writes and lets a test play the engine's side. */
class MemoryEngine : EngineLauncher {
    val written = mutableListOf<String>()
    var launches = 0
    var launchArgs: List<String> = emptyList()
    var closed = false
    private var sink: EngineSink? = null

    override fun launch(context: Any?, args: List<String>, sink: EngineSink): EngineTransport {
        launches++
        launchArgs = args
        this.sink = sink
        return object : EngineTransport {
            override fun write(bytes: ByteArray) { written.add(String(bytes, Charsets.UTF_8)) }
            override fun close() { closed = true }
        }
    }

    /** Bytes from the engine, as one chunk. */
    fun emit(text: String) {
        val bytes = text.toByteArray(Charsets.UTF_8)
        sink!!.onData(bytes, 0, bytes.size)
    }

    fun emit(bytes: ByteArray) = sink!!.onData(bytes, 0, bytes.size)

    /** The engine's stream ends (it exited). */
    fun end(exitCode: Int?) = sink!!.onClosed(exitCode)

    /** The last line written, parsed. */
    fun lastCommand(): JSONObject = JSONObject(written.last())
}

/** A backend on a [MemoryEngine], collecting warnings. */
class MemoryBackend(device: DeviceInfo = ANDROID_14) {
    val engine = MemoryEngine()
    val warnings = mutableListOf<HostWarning>()
    val backend = ArusBackend(BackendInit(device, EngineRef.Factory { engine }) { warnings.add(it) })
    val messages = mutableListOf<EngineMessage>()

    init { backend.onMessage { messages.add(it) } }

    fun started(options: StartOptions = StartOptions("a".repeat(64))): MemoryBackend = apply { backend.start(null, options) }
}

/**
 * A virtual clock for the player: time moves only in [advance], repeating tasks fire at their
 * due times in order (as vitest's fake timers run setInterval), posted tasks run at once.
 */
class VirtualClock(private var time: Long = 1_000_000) : PlayerLoop {
    private class Task(val period: Long, var due: Long, val fn: () -> Unit) { var cancelled = false }
    private val tasks = mutableListOf<Task>()

    override fun now(): Long = time
    override fun post(task: () -> Unit) = task()

    override fun every(periodMs: Long, task: () -> Unit): Cancellable {
        val t = Task(periodMs, time + periodMs, task)
        tasks.add(t)
        return Cancellable { t.cancelled = true; tasks.remove(t) }
    }

    fun advance(ms: Long) {
        val end = time + ms
        while (true) {
            val next = tasks.filter { !it.cancelled }.minByOrNull { it.due } ?: break
            if (next.due > end) break
            time = next.due
            next.due += next.period
            next.fn()
        }
        time = end
    }

    /** Repeating tasks still armed. */
    val armed: Int get() = tasks.count { !it.cancelled }
}
