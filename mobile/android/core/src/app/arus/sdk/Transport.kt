package app.arus.sdk

/** What the engine sends, in order, on the transport's reader thread. */
interface EngineSink {
    fun onData(bytes: ByteArray, offset: Int, length: Int)

    /** The engine's stream ended; [exitCode] when the transport knows it. */
    fun onClosed(exitCode: Int?)
}

/** The host's side of the engine's byte stream (one line per command). */
interface EngineTransport {
    fun write(bytes: ByteArray)

    /** Ends the host's side: the engine stops and exits (docs/engine-ipc.md "Transports"). Idempotent. */
    fun close()
}

/**
 * The engine class: starts the worklet and connects a transport to it. On Android that is the
 * adapter's Bare Kit worklet (which loads native code); on a desktop or in tests, a `bare`
 * child process ([ProcessEngine]).
 */
interface EngineLauncher {
    /** [context] is what the host passed to start() (an android.content.Context on Android). */
    fun launch(context: Any?, args: List<String>, sink: EngineSink): EngineTransport
}

/**
 * How a backend reaches its engine class. Resolved only by start() on a supported device, so
 * below API 29 the class is never loaded (no native patch needed: spec 3 "Native mobile SDK").
 */
sealed class EngineRef {
    abstract fun resolve(): EngineLauncher

    /** By name, with a public no-argument constructor: the Android default. Loaded on first use only. */
    class Named(val className: String, private val loader: ClassLoader? = null) : EngineRef() {
        override fun resolve(): EngineLauncher {
            val cls = Class.forName(className, true, loader ?: Named::class.java.classLoader)
            return cls.getDeclaredConstructor().newInstance() as EngineLauncher
        }
    }

    /** Built on demand by [create] (desktop hosts, tests). */
    class Factory(private val create: () -> EngineLauncher) : EngineRef() {
        override fun resolve(): EngineLauncher = create()
    }
}
