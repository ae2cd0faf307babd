package app.arus.sdk

import org.json.JSONArray
import org.json.JSONObject

/**
 * What a host caches from the engine's messages (spec 3 "Cached state"; docs/engine-ipc.md
 * "Host state"). Immutable: [applyEngineMessage] returns the next state.
 */
data class HostState(
    val port: Int? = null,
    /** The ids of the last `streams` message. */
    val streams: List<String> = emptyList(),
    val url: String? = null,
    val source: StreamSource? = null,
    val mediaType: MediaType? = null,
    /** The engine-confirmed playing channel (a `playing` status), not the one last asked for. */
    val activeStreamId: String? = null,
    val feedKey: String? = null,
    val creds: Credentials? = null,
    val favorites: List<String> = emptyList(),
) {
    /** The shape the transcript fixtures record (`state`). */
    fun toJson(): JSONObject = JSONObject()
        .put("port", port ?: JSONObject.NULL)
        .put("streams", JSONArray(streams))
        .put("url", url ?: JSONObject.NULL)
        .put("source", source?.wire ?: JSONObject.NULL)
        .put("mediaType", mediaType?.wire ?: JSONObject.NULL)
        .put("activeStreamId", activeStreamId ?: JSONObject.NULL)
        .put("feedKey", feedKey ?: JSONObject.NULL)
        .put("creds", creds?.let { JSONObject().put("username", it.username).put("password", it.password) } ?: JSONObject.NULL)
        .put("favorites", JSONArray(favorites))

    companion object {
        val INITIAL = HostState()
    }
}

/**
 * The reduction of one message into the cached state: `applyEngineMessage` of
 * `@arus/engine-protocol`, rule for rule (every binding reaches the same state from the same
 * transcript; the fixtures in packages/sdk/ipc-fixtures hold both).
 */
fun applyEngineMessage(state: HostState, msg: EngineMessage): HostState = when (msg) {
    is EngineMessage.Port -> state.copy(port = msg.port)
    is EngineMessage.Streams -> state.copy(streams = msg.streams.map { it.id })
    is EngineMessage.Prefs -> state.copy(creds = msg.creds, favorites = msg.favorites.toList())
    is EngineMessage.Status ->
        if (msg.state != "playing") state
        else state.copy(
            activeStreamId = msg.streamId,
            url = msg.url ?: state.url,
            source = msg.source ?: state.source,
            mediaType = msg.mediaType ?: state.mediaType,
            feedKey = msg.feedKey,
        )
    is EngineMessage.FeedChanged ->
        if (msg.streamId == state.activeStreamId) state.copy(feedKey = msg.feedKey, url = msg.url) else state
    else -> state
}
