package app.arus.sdk

import org.json.JSONArray
import org.json.JSONObject

/** A resolve result's kind (spec 3 "resolve result"). */
enum class MediaType(val wire: String) { LIVE("live"), VOD("vod") }

/** Where a stream plays from: the engine's local server, or an operator URL. */
enum class StreamSource(val wire: String) { P2P("p2p"), CDN("cdn") }

/** Saved credentials (the worklet's prefs). toString never shows the password. */
data class Credentials(val username: String, val password: String) {
    override fun toString(): String = "Credentials(username=$username, password=***)"
}

/** One entitled stream as the engine lists it (never a key); [fields] holds every field it sent. */
class StreamItem(val id: String, val title: String, val type: MediaType, val fields: JSONObject) {
    override fun toString(): String = "StreamItem($id, $title, ${type.wire})"
}

/**
 * Every message the engine sends (docs/engine-ipc.md "Messages"), one subclass per `type`, with
 * exactly the fields the TypeScript schema (`EngineMessageSchema`) keeps. [Unknown] is a type
 * this host does not know (a newer engine's): hosts ignore it.
 */
sealed class EngineMessage {
    abstract val type: String

    /** The message as JSON, the fields the schema keeps (an absent optional is left out). */
    abstract fun toJson(): JSONObject

    protected fun json(vararg fields: Pair<String, Any?>): JSONObject {
        val o = JSONObject().put("type", type)
        for ((k, v) in fields) if (v !== Absent) o.put(k, v ?: JSONObject.NULL)
        return o
    }

    /** The engine started; its local HTTP server listens on 127.0.0.1:[port]. */
    data class Port(val v: Int, val port: Int) : EngineMessage() {
        override val type get() = "port"
        override fun toJson() = json("v" to v, "port" to port)
    }

    /** The entitled streams, at login and on live catalog edits. */
    class Streams(val streams: List<StreamItem>) : EngineMessage() {
        override val type get() = "streams"
        override fun toJson() = json("streams" to JSONArray().also { a -> streams.forEach { a.put(it.fields) } })
        override fun toString() = "Streams(${streams.map { it.id }})"
    }

    /**
     * The engine's state: `ready`, `logged-in`, `playing` (with [url], [source], [mediaType],
     * [feedKey]), the tune ladder's `feed:*`, and `peers` (with [peers]).
     */
    data class Status(
        val state: String,
        val streamId: String?,
        val url: String? = null,
        val source: StreamSource? = null,
        val mediaType: MediaType? = null,
        /** Null when absent or null: the reduction treats both alike. */
        val feedKey: String? = null,
        val peers: Int? = null,
    ) : EngineMessage() {
        override val type get() = "status"
        override fun toJson() = json(
            "state" to state, "streamId" to streamId, "url" to opt(url), "source" to opt(source?.wire),
            "mediaType" to opt(mediaType?.wire), "feedKey" to opt(feedKey), "peers" to opt(peers),
        )
    }

    /** A command failed, or a friendly failure while playing (`SDK_TUNE_TIMEOUT`). */
    data class Error(
        val code: String,
        val message: String,
        val cmd: String? = null,
        /** The command's `id` echoed: a String or a Number. */
        val id: Any? = null,
        val streamId: String? = null,
    ) : EngineMessage() {
        override val type get() = "error"
        override fun toJson() = json("code" to code, "message" to message, "cmd" to opt(cmd), "id" to opt(id), "streamId" to opt(streamId))
    }

    /** A login failed; [retryable] says whether the same login may succeed later. */
    data class LoginError(
        val code: String,
        val message: String,
        val retryable: Boolean,
        val retryAfter: Double? = null,
        val id: Any? = null,
    ) : EngineMessage() {
        override val type get() = "login-error"
        override fun toJson() = json("code" to code, "message" to message, "retryable" to retryable, "retryAfter" to opt(retryAfter), "id" to opt(id))
    }

    /** The playing stream's feed rotated; the engine serves the new one behind the same [url]. */
    data class FeedChanged(val streamId: String, val feedKey: String, val url: String) : EngineMessage() {
        override val type get() = "feed-changed"
        override fun toJson() = json("streamId" to streamId, "feedKey" to feedKey, "url" to url)
    }

    /** Neighbor warming on/off ([enabled]), or suspended/resumed ([state], [reason]). */
    data class ZapPrefetch(val enabled: Boolean? = null, val state: String? = null, val reason: String? = null) : EngineMessage() {
        override val type get() = "zap-prefetch"
        override fun toJson() = json("enabled" to opt(enabled), "state" to opt(state), "reason" to opt(reason))
    }

    /** The prefs store: saved [creds] (or null) and [favorites]. */
    data class Prefs(val creds: Credentials?, val favorites: List<String>) : EngineMessage() {
        override val type get() = "prefs"
        override fun toJson() = json(
            "creds" to creds?.let { JSONObject().put("username", it.username).put("password", it.password) },
            "favorites" to JSONArray(favorites),
        )
    }

    /** Hybrid (CDN failover) mode only: this engine never sends it. */
    object Fallback : EngineMessage() {
        override val type get() = "fallback"
        override fun toJson() = json()
    }

    /** Hybrid (CDN failover) mode only: this engine never sends it. */
    object SourceChanged : EngineMessage() {
        override val type get() = "source-changed"
        override fun toJson() = json()
    }

    /** Protocol 2: what the panel made of a `report` command. */
    data class Report(
        val channel: String,
        val category: ReportCategory,
        val status: ReportStatus,
        /** Seconds until the same channel and category may be reported again ([ReportStatus.COOLDOWN], [ReportStatus.LOCKED]). */
        val retryAfter: Double? = null,
        val id: Any? = null,
    ) : EngineMessage() {
        override val type get() = "report"
        override fun toJson() = json("channel" to channel, "category" to category.wire, "status" to status.wire, "retryAfter" to opt(retryAfter), "id" to opt(id))
    }

    /** Protocol 2: the guide of [epgId] in the feed at [epgUrl]; [now] null and [next] empty when there is none. */
    data class Epg(val epgUrl: String, val epgId: String, val now: EpgEntry?, val next: List<EpgEntry>, val loaded: Boolean, val id: Any? = null) : EngineMessage() {
        override val type get() = "epg"
        override fun toJson() = json(
            "epgUrl" to epgUrl, "epgId" to epgId, "now" to now?.let(::entry), "next" to JSONArray().also { a -> next.forEach { a.put(entry(it)) } },
            "loaded" to loaded, "id" to opt(id),
        )

        private fun entry(e: EpgEntry) = JSONObject().put("title", e.title).put("start", e.start).put("stop", e.stop)
    }

    /** Protocol 2: the VOD provider settings as of the last login, or null until the operator sets them. */
    data class VodProviderSettings(val provider: VodProvider?, val id: Any? = null) : EngineMessage() {
        override val type get() = "vod-provider"
        override fun toJson() = json(
            "provider" to provider?.let { p ->
                JSONObject().put("enabled", p.enabled).put("apiBase", p.apiBase).put("service", p.service)
                    .put("sources", JSONObject().apply { p.movies?.let { put("movies", it) }; p.series?.let { put("series", it) } })
                    .put("params", JSONObject().apply { p.params.forEach { (k, v) -> put(k, v) } })
            },
            "id" to opt(id),
        )
    }

    /** Protocol 2: the upload policy now in force (setUploadPolicy), and how many topics were joined again. */
    data class UploadPolicyChanged(val policy: UploadPolicy, val rejoined: Int) : EngineMessage() {
        override val type get() = "upload-policy"
        override fun toJson() = json("policy" to policy.wire, "rejoined" to rejoined)
    }

    /** Protocol 2: how many entitled feeds' topics `prewarm` warmed. */
    data class Prewarmed(val warmed: Int, val id: Any? = null) : EngineMessage() {
        override val type get() = "prewarm"
        override fun toJson() = json("warmed" to warmed, "id" to opt(id))
    }

    /** Protocol 2: whether this device is still enrolled with the account's current tokenVersion. */
    data class SessionLive(val live: Boolean, val id: Any? = null) : EngineMessage() {
        override val type get() = "session-live"
        override fun toJson() = json("live" to live, "id" to opt(id))
    }

    /** Protocol 2: the replica store was corrupt, purged and the operation retried (informational). */
    data class Recovered(val message: String, val code: String? = null) : EngineMessage() {
        override val type get() = "recovered"
        override fun toJson() = json("message" to message, "code" to opt(code))
    }

    /** A type this host does not know; ignored by [ArusBackend]. */
    data class Unknown(override val type: String) : EngineMessage() {
        override fun toJson() = json()
    }

    /** Marks an optional field that is left out of [toJson]. */
    protected object Absent

    protected fun opt(value: Any?): Any? = value ?: Absent
}
