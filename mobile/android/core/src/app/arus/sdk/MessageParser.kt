package app.arus.sdk

import org.json.JSONArray
import org.json.JSONObject

/** A known message type whose fields do not match the schema; [field] names the first bad one. */
class InvalidMessage(val type: String, val field: String) : Exception("invalid '$type' message: $field")

/**
 * Engine lines into [EngineMessage]s, with the rules of `EngineMessageSchema` in
 * `@arus/engine-protocol`: required and optional fields, types, enums, string caps and integer
 * ranges. Unknown fields are ignored (a newer engine may add some), stream items keep all theirs.
 */
object MessageParser {
    private const val MAX_SAFE_INTEGER = 9007199254740991.0

    /** Parses one decoded line. An unknown or missing `type` gives [EngineMessage.Unknown]. */
    @Throws(InvalidMessage::class)
    fun parse(obj: JSONObject): EngineMessage {
        val type = obj.opt("type") as? String ?: return EngineMessage.Unknown("")
        val f = Fields(type, obj)
        return when (type) {
            "port" -> EngineMessage.Port(f.int("v", min = 1), f.int("port", min = 0, max = 65535))
            "streams" -> EngineMessage.Streams(f.array("streams").mapIndexed { i, item -> streamItem(type, i, item) })
            "status" -> EngineMessage.Status(
                state = f.string("state", max = 64),
                streamId = f.nullableString("streamId", optional = false),
                url = f.optString("url", max = URL_MAX),
                source = f.optEnum("source", StreamSource.values()) { it.wire },
                mediaType = f.optEnum("mediaType", MediaType.values()) { it.wire },
                feedKey = f.nullableString("feedKey", optional = true),
                peers = f.optInt("peers", min = 0),
            )
            "error" -> EngineMessage.Error(
                code = f.string("code", max = 64),
                message = f.string("message", max = 4096),
                cmd = f.optString("cmd"),
                id = f.optId("id"),
                streamId = f.nullableString("streamId", optional = true),
            )
            "login-error" -> EngineMessage.LoginError(
                code = f.string("code", max = 64),
                message = f.string("message", max = 4096),
                retryable = f.boolean("retryable"),
                retryAfter = f.optNumber("retryAfter"),
                id = f.optId("id"),
            )
            "feed-changed" -> EngineMessage.FeedChanged(f.string("streamId"), f.string("feedKey"), f.string("url", max = URL_MAX))
            "zap-prefetch" -> EngineMessage.ZapPrefetch(
                enabled = f.optBoolean("enabled"),
                state = f.optString("state")?.also { if (it != "suspended" && it != "resumed") throw InvalidMessage(type, "state") },
                reason = f.optString("reason"),
            )
            "prefs" -> EngineMessage.Prefs(f.creds("creds"), f.array("favorites").mapIndexed { i, v -> v as? String ?: throw InvalidMessage(type, "favorites.$i") })
            "fallback" -> EngineMessage.Fallback
            "source-changed" -> EngineMessage.SourceChanged
            "report" -> EngineMessage.Report(
                channel = f.string("channel"),
                category = f.enum("category", ReportCategory.values()) { it.wire },
                status = f.enum("status", ReportStatus.values()) { it.wire },
                retryAfter = f.optNumber("retryAfter")?.also { if (it < 0) f.bad("retryAfter") },
                id = f.optId("id"),
            )
            "epg" -> EngineMessage.Epg(
                epgUrl = f.string("epgUrl"),
                epgId = f.string("epgId"),
                now = f.nullableObject("now", optional = false)?.let { epgEntry(type, "now.", it) },
                next = f.array("next").also { if (it.size > 64) f.bad("next") }.mapIndexed { i, v -> epgEntry(type, "next.$i.", v as? JSONObject ?: f.bad("next.$i")) },
                loaded = f.boolean("loaded"),
                id = f.optId("id"),
            )
            "vod-provider" -> EngineMessage.VodProviderSettings(f.nullableObject("provider", optional = false)?.let { vodProvider(type, it) }, f.optId("id"))
            "upload-policy" -> EngineMessage.UploadPolicyChanged(f.enum("policy", UploadPolicy.values()) { it.wire }, f.int("rejoined", min = 0))
            "prewarm" -> EngineMessage.Prewarmed(f.int("warmed", min = 0), f.optId("id"))
            "session-live" -> EngineMessage.SessionLive(f.boolean("live"), f.optId("id"))
            "recovered" -> EngineMessage.Recovered(f.string("message", max = 4096), f.optString("code", max = 64))
            else -> EngineMessage.Unknown(type)
        }
    }

    private const val URL_MAX = 2048

    private fun streamItem(type: String, i: Int, item: Any?): StreamItem {
        val o = item as? JSONObject ?: throw InvalidMessage(type, "streams.$i")
        val f = Fields(type, o, "streams.$i.")
        return StreamItem(f.string("id"), f.string("title"), f.enum("type", MediaType.values()) { it.wire }, o)
    }

    private fun epgEntry(type: String, prefix: String, o: JSONObject): EpgEntry {
        val f = Fields(type, o, prefix)
        return EpgEntry(f.string("title", max = 1024), f.string("start", max = 64), f.string("stop", max = 64))
    }

    private fun vodProvider(type: String, o: JSONObject): VodProvider {
        val f = Fields(type, o, "provider.")
        val sources = Fields(type, f.obj("sources"), "provider.sources.")
        val params = f.obj("params")
        return VodProvider(
            enabled = f.boolean("enabled"),
            apiBase = f.string("apiBase", max = 2048),
            service = f.string("service", max = 256),
            movies = sources.optString("movies"),
            series = sources.optString("series"),
            params = params.keys().asSequence().associateWith { k -> params.opt(k) as? String ?: throw InvalidMessage(type, "provider.params.$k") },
        )
    }

    /** Reads one message's fields; every failure names the field. */
    private class Fields(val type: String, val obj: JSONObject, val prefix: String = "") {
        fun bad(key: String): Nothing = throw InvalidMessage(type, prefix + key)
        private fun raw(key: String): Any? = if (obj.has(key)) obj.opt(key) else Missing

        fun string(key: String, max: Int = Int.MAX_VALUE): String {
            val v = raw(key) as? String ?: bad(key)
            return if (v.length <= max) v else bad(key)
        }

        fun optString(key: String, max: Int = Int.MAX_VALUE): String? = if (raw(key) === Missing) null else string(key, max)

        fun nullableString(key: String, optional: Boolean): String? = when (raw(key)) {
            Missing -> if (optional) null else bad(key)
            JSONObject.NULL -> null
            else -> string(key)
        }

        fun obj(key: String): JSONObject = raw(key) as? JSONObject ?: bad(key)

        fun nullableObject(key: String, optional: Boolean): JSONObject? = when (val v = raw(key)) {
            Missing -> if (optional) null else bad(key)
            JSONObject.NULL -> null
            is JSONObject -> v
            else -> bad(key)
        }

        fun boolean(key: String): Boolean = raw(key) as? Boolean ?: bad(key)
        fun optBoolean(key: String): Boolean? = if (raw(key) === Missing) null else boolean(key)

        fun number(key: String): Double = (raw(key) as? Number)?.toDouble()?.takeIf { it.isFinite() } ?: bad(key)
        fun optNumber(key: String): Double? = if (raw(key) === Missing) null else number(key)

        fun int(key: String, min: Int = Int.MIN_VALUE, max: Int = Int.MAX_VALUE): Int {
            val d = number(key)
            if (d != Math.floor(d) || Math.abs(d) > MAX_SAFE_INTEGER || d < min || d > max) bad(key)
            return d.toInt()
        }

        fun optInt(key: String, min: Int = Int.MIN_VALUE, max: Int = Int.MAX_VALUE): Int? = if (raw(key) === Missing) null else int(key, min, max)

        /** A command id echoed: a string or a number (never null). */
        fun optId(key: String): Any? = when (val v = raw(key)) {
            Missing -> null
            is String -> v
            is Number -> if (v.toDouble().isFinite()) v else bad(key)
            else -> bad(key)
        }

        fun <E> enum(key: String, values: Array<E>, wire: (E) -> String): E {
            val s = string(key)
            return values.firstOrNull { wire(it) == s } ?: bad(key)
        }

        fun <E> optEnum(key: String, values: Array<E>, wire: (E) -> String): E? = if (raw(key) === Missing) null else enum(key, values, wire)

        fun array(key: String): List<Any?> {
            val a = raw(key) as? JSONArray ?: bad(key)
            return (0 until a.length()).map { a.opt(it) }
        }

        fun creds(key: String): Credentials? = when (val v = raw(key)) {
            JSONObject.NULL -> null
            is JSONObject -> Fields(type, v, "$prefix$key.").let { Credentials(it.string("username"), it.string("password")) }
            else -> bad(key)
        }
    }

    private object Missing
}
