package app.arus.sdk

/**
 * The host side's own codes (mobile/android/README.md "Error codes"; a test fails when the two
 * drift). Engine failures keep the engine's codes (`SDK_*`, docs/errors.md "@arus/sdk").
 */
object HostErrorCodes {
    const val BAD_LINE = "HOST_BAD_LINE"
    const val INVALID_MESSAGE = "HOST_INVALID_MESSAGE"
    const val LISTENER_FAILED = "HOST_LISTENER_FAILED"
    const val COMMAND_TOO_LONG = "HOST_COMMAND_TOO_LONG"
    const val ENGINE_EXITED = "HOST_ENGINE_EXITED"
    const val ENGINE_START_FAILED = "HOST_ENGINE_START_FAILED"
    const val PLAYER_ERROR = "PLAYER_ERROR"

    /** Every code and its meaning, as the README lists them. */
    val ALL: Map<String, String> = linkedMapOf(
        BAD_LINE to "An engine line was dropped: not JSON, not an object, or over the 4 MiB line cap (the warning names the reason and size, never the content).",
        INVALID_MESSAGE to "An engine message of a known type had a missing or invalid field; it was dropped.",
        LISTENER_FAILED to "A message listener threw; the other listeners still got the message.",
        COMMAND_TOO_LONG to "A command over the 4 MiB line cap was not sent.",
        ENGINE_EXITED to "The engine's stream ended while the backend was started (the engine stopped or crashed).",
        ENGINE_START_FAILED to "start() could not load or launch the engine class (thrown as ArusException).",
        PLAYER_ERROR to "The platform player failed on the engine's local URL (ArusPlayerListener.onError).",
    )
}

/** A warning from the host side: dropped lines, listener failures. Never a line's content. */
data class HostWarning(val code: String, val message: String)

/** Where warnings go (the adapter: android.util.Log; default: stderr). */
fun interface WarningSink {
    fun warn(warning: HostWarning)
}

/** A host-side failure with a stable [code] from [HostErrorCodes]. */
class ArusException(val code: String, message: String, cause: Throwable? = null) : RuntimeException(message, cause)
