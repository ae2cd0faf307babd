package app.arus.sdk

import org.json.JSONObject

/**
 * The engine IPC protocol (docs/engine-ipc.md): one UTF-8 JSON object per `\n`-terminated line,
 * commands (`cmd`) from the host, messages (`type`) from the engine. The Kotlin twin of
 * `@arus/engine-protocol`; bump together with `ENGINE_PROTOCOL_VERSION` there.
 */
object EngineProtocol {
    /**
     * The version this host speaks (`start.v`); the engine states its own in `port.v`. 2 added
     * report, epg, vodProvider, setUploadPolicy, prewarm, sessionLive and their messages, and
     * the `upload-policy` and `recovered` events; an engine takes a start of any version up to its own.
     */
    const val VERSION: Int = 2

    /** Longest line either side accepts, in bytes, newline excluded (docs/engine-ipc.md "Framing"). */
    const val MAX_LINE_BYTES: Int = 4 * 1024 * 1024

    /** Every message type this host knows; any other `type` is a newer engine's and is ignored. */
    val MESSAGE_TYPES: Set<String> = linkedSetOf(
        "port", "streams", "status", "error", "login-error", "feed-changed", "zap-prefetch", "prefs",
        "fallback", "source-changed",
        "report", "epg", "vod-provider", "upload-policy", "prewarm", "session-live", "recovered",
    )

    /** The command names (docs/engine-ipc.md "Commands"). */
    val COMMANDS: Set<String> = linkedSetOf(
        "start", "login", "play", "playRaw", "reconnect", "setZapPrefetch", "setNetworkProfile",
        "requestPrefs", "saveCredentials", "clearCredentials", "toggleFavorite", "stop",
        "report", "epg", "vodProvider", "setUploadPolicy", "prewarm", "sessionLive",
    )

    /** One command as its line: the JSON text plus the newline, UTF-8. */
    fun encodeLine(command: JSONObject): ByteArray = (command.toString() + "\n").toByteArray(Charsets.UTF_8)
}
