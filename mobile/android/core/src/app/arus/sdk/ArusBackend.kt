package app.arus.sdk

import java.util.concurrent.CopyOnWriteArrayList
import org.json.JSONObject

/** Gets every engine message after the cached state took it in. */
fun interface MessageListener {
    fun onMessage(message: EngineMessage)
}

/** Ends a subscription; idempotent. */
fun interface Subscription {
    fun cancel()
}

/** What a backend is built from. */
class BackendInit(
    /** The device for [Arus.isSupported]; the adapter reads it from android.os.Build. */
    val device: DeviceInfo,
    /** The engine class, resolved by the first start() on a supported device only. */
    val engine: EngineRef,
    /** Warnings (dropped lines, listener failures); never a line's content. */
    val warn: WarningSink = WarningSink { System.err.println("arus: [${it.code}] ${it.message}") },
)

/**
 * The viewer engine in a Bare worklet driven over the engine IPC (docs/engine-ipc.md), with the
 * state a UI needs cached from its messages: spec 3 "Native mobile SDK" ServiceBackend, the
 * twin of `@arus/react-native`'s ArusBackend. On an unsupported device ([Arus.isSupported]
 * false) the whole backend is inert: start() and every method do nothing, no listener ever
 * fires, and the engine class is never loaded.
 *
 * Thread-safe. Listeners run on the transport's reader thread, in message order.
 */
class ArusBackend(private val init: BackendInit) : PlayerBackend {
    companion object {
        /** [Arus.isSupported]: API level 29 or later on a 64-bit OS. */
        @JvmStatic
        fun isSupported(apiLevel: Int, is64Bit: Boolean): Boolean = Arus.isSupported(apiLevel, is64Bit)
    }

    /** True on an unsupported device: every method is a silent no-op. */
    val isInert: Boolean = !Arus.isSupported(init.device)

    @Volatile private var state: HostState = HostState.INITIAL
    @Volatile private var items: List<StreamItem> = emptyList()
    private val listeners = CopyOnWriteArrayList<MessageListener>()
    private val lock = Any()
    @Volatile private var transport: EngineTransport? = null
    private var started = false
    @Volatile private var startRefused = false
    private val decoder = LineDecoder(::receive, { drop ->
        warn(HostErrorCodes.BAD_LINE, "dropped an engine line (${drop.reason.wire}, ${drop.bytes} bytes)")
    })

    /**
     * Starts the engine and sends `start` (protocol version and [options]); idempotent, except
     * after the engine refused the options (an `error` message with `cmd` 'start'): then the same
     * engine is sent these. [context] goes to the engine class (an android.content.Context on Android).
     * @throws ArusException [HostErrorCodes.ENGINE_START_FAILED] when the engine cannot be launched.
     */
    fun start(context: Any?, options: StartOptions) {
        if (isInert) return
        synchronized(lock) {
            if (started) {
                // The engine refused the last start (an `error` with cmd 'start'): the same engine
                // takes these corrected options; [StartOptions.dataDir] of the first start stays.
                if (startRefused && transport != null) {
                    startRefused = false
                    send(EngineCommand.start(options))
                }
                return
            }
            val args = (options.dataDir?.let { listOf("--data", it) } ?: emptyList()) + (options.caFile?.let { listOf("--ca", it) } ?: emptyList())
            val sink = Sink()
            transport = try {
                init.engine.resolve().launch(context, args, sink).also { sink.owner = it }
            } catch (e: Exception) {
                throw ArusException(HostErrorCodes.ENGINE_START_FAILED, "could not launch the engine: ${e.javaClass.name}", e)
            } catch (e: LinkageError) { // a missing or unloadable native library
                throw ArusException(HostErrorCodes.ENGINE_START_FAILED, "could not load the engine: ${e.javaClass.name}", e)
            }
            started = true
            send(EngineCommand.start(options))
        }
    }

    fun login(username: String, password: String) = send(EngineCommand.login(username, password))
    override fun play(streamId: String) = send(EngineCommand.play(streamId))
    fun playRaw(feedKey: String, encKey: String) = send(EngineCommand.playRaw(feedKey, encKey))
    override fun reconnect() = send(EngineCommand.reconnect())
    fun setZapPrefetch(value: ZapPrefetchOption) = send(EngineCommand.setZapPrefetch(value))
    fun setZapPrefetch(enabled: Boolean) = setZapPrefetch(ZapPrefetchOption.Enabled(enabled))
    fun setNetworkProfile(expensive: Boolean, cellular: Boolean? = null) = send(EngineCommand.setNetworkProfile(expensive, cellular))
    fun requestPrefs() = send(EngineCommand.requestPrefs())
    fun saveCredentials(username: String, password: String) = send(EngineCommand.saveCredentials(username, password))
    fun clearCredentials() = send(EngineCommand.clearCredentials())
    fun toggleFavorite(streamId: String) = send(EngineCommand.toggleFavorite(streamId))
    fun isFavorite(streamId: String): Boolean = streamId in state.favorites

    // Protocol 2 (docs/engine-ipc.md): each answers with the message of the same concern.
    /** Files a problem report: answered by [EngineMessage.Report]. */
    fun report(input: ReportInput) = send(EngineCommand.report(input))
    /** The guide of a stream (its `epgUrl`/`epgId`): answered by [EngineMessage.Epg]. */
    fun epg(epgUrl: String, epgId: String) = send(EngineCommand.epg(epgUrl, epgId))
    /** The VOD provider settings as of the last login: answered by [EngineMessage.VodProviderSettings]. */
    fun vodProvider() = send(EngineCommand.vodProvider())
    /** Switches re-seeding: answered by [EngineMessage.UploadPolicyChanged]. */
    fun setUploadPolicy(policy: UploadPolicy) = send(EngineCommand.setUploadPolicy(policy))
    /** Warms entitled feeds' topics ([count], default the start option or all): answered by [EngineMessage.Prewarmed]. */
    fun prewarm(count: Int? = null) = send(EngineCommand.prewarm(count))
    /** Online check that this device is still enrolled: answered by [EngineMessage.SessionLive]. */
    fun sessionLive() = send(EngineCommand.sessionLive())

    /** Every engine message, after the cached state took it in; unknown types are not delivered. */
    override fun onMessage(listener: MessageListener): Subscription {
        if (isInert) return Subscription {}
        listeners.add(listener)
        return Subscription { listeners.remove(listener) }
    }

    /** Sends `stop` and ends the host's side of the stream: the engine stops and exits. */
    fun stop() {
        synchronized(lock) {
            val t = transport ?: return
            send(EngineCommand.stop())
            transport = null
            t.close()
        }
    }

    val streams: List<StreamItem> get() = items
    val port: Int? get() = state.port
    val url: String? get() = state.url
    val source: StreamSource? get() = state.source
    val mediaType: MediaType? get() = state.mediaType
    /** The channel the engine confirmed it plays (not the one last asked for). */
    val activeStreamId: String? get() = state.activeStreamId
    val feedKey: String? get() = state.feedKey
    val creds: Credentials? get() = state.creds
    val favorites: List<String> get() = state.favorites
    /** The whole cached state (the shape the transcript fixtures record). */
    fun snapshot(): HostState = state

    private fun send(command: JSONObject) {
        if (isInert) return
        val t = transport ?: return
        val line = EngineProtocol.encodeLine(command)
        if (line.size - 1 > EngineProtocol.MAX_LINE_BYTES) {
            warn(HostErrorCodes.COMMAND_TOO_LONG, "did not send a '${command.optString("cmd")}' command over ${EngineProtocol.MAX_LINE_BYTES} bytes")
            return
        }
        t.write(line)
    }

    private fun receive(value: JSONObject) {
        val msg = try {
            MessageParser.parse(value)
        } catch (e: InvalidMessage) {
            warn(HostErrorCodes.INVALID_MESSAGE, "dropped an invalid '${e.type}' message (${e.field})")
            return
        }
        if (msg is EngineMessage.Unknown) return // a newer engine's message: ignored
        if (msg is EngineMessage.Error && msg.cmd == "start") startRefused = true
        state = applyEngineMessage(state, msg)
        if (msg is EngineMessage.Streams) items = msg.streams
        for (listener in listeners) {
            try {
                listener.onMessage(msg)
            } catch (e: VirtualMachineError) {
                throw e
            } catch (e: Throwable) { // an AssertionError in a host's listener too: the others still get it
                warn(HostErrorCodes.LISTENER_FAILED, "a message listener threw: ${e.javaClass.name}")
            }
        }
    }

    /** One engine's stream into the decoder; its end matters only while it is the current one. */
    private inner class Sink : EngineSink {
        var owner: EngineTransport? = null // set under the lock, which onClosed takes too

        override fun onData(bytes: ByteArray, offset: Int, length: Int) {
            synchronized(decoder) { decoder.push(bytes, offset, length) }
        }

        override fun onClosed(exitCode: Int?) {
            synchronized(lock) {
                if (owner == null || transport !== owner) return // stopped by the host
                transport = null
            }
            warn(HostErrorCodes.ENGINE_EXITED, "the engine's stream ended (exit code ${exitCode ?: "unknown"})")
        }
    }

    private fun warn(code: String, message: String) {
        try {
            init.warn.warn(HostWarning(code, message))
        } catch (_: Exception) {
            // a broken sink must not break delivery
        }
    }
}
