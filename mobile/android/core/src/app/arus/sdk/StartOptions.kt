package app.arus.sdk

import org.json.JSONArray
import org.json.JSONObject

/** A DHT bootstrap node (private or test networks; omit for the public DHT). */
data class HostPort(val host: String, val port: Int)

/** Tune ladder timings (spec 3 "Tune ladder"); null keeps the engine's default. */
data class TuneOptions(
    val timeoutMs: Long? = null,
    val relookupMinMs: Long? = null,
    val relookupMaxMs: Long? = null,
    val rescanMs: Long? = null,
) {
    internal fun toJson(): JSONObject = JSONObject().apply {
        timeoutMs?.let { put("timeoutMs", it) }
        relookupMinMs?.let { put("relookupMinMs", it) }
        relookupMaxMs?.let { put("relookupMaxMs", it) }
        rescanMs?.let { put("rescanMs", it) }
    }
}

/** swarm options: [maxPeers] (default 64) and a [bootstrap] list. */
data class SwarmOptions(val maxPeers: Int? = null, val bootstrap: List<HostPort>? = null) {
    internal fun toJson(): JSONObject = JSONObject().apply {
        maxPeers?.let { put("maxPeers", it) }
        bootstrap?.let { list -> put("bootstrap", JSONArray().also { a -> list.forEach { a.put(JSONObject().put("host", it.host).put("port", it.port)) } }) }
    }
}

/** prewarm: all entitled feeds (true), none (false), or the first [Count] in curated order. */
sealed class Prewarm {
    data class Enabled(val on: Boolean) : Prewarm()
    data class Count(val feeds: Int) : Prewarm()

    internal fun wire(): Any = when (this) { is Enabled -> on; is Count -> feeds }
}

/** zapPrefetch (spec 3 "zapPrefetch object keys"): on/off, or tuned; null keys keep the defaults. */
sealed class ZapPrefetchOption {
    data class Enabled(val on: Boolean) : ZapPrefetchOption()
    data class Tuned(
        val neighbors: Int? = null,
        val intervalMs: Long? = null,
        val directional: Boolean? = null,
        val stallMs: Long? = null,
        val resumeMs: Long? = null,
        val minHeadroom: Double? = null,
    ) : ZapPrefetchOption()

    internal fun wire(): Any = when (this) {
        is Enabled -> on
        is Tuned -> JSONObject().apply {
            neighbors?.let { put("neighbors", it) }
            intervalMs?.let { put("intervalMs", it) }
            directional?.let { put("directional", it) }
            stallMs?.let { put("stallMs", it) }
            resumeMs?.let { put("resumeMs", it) }
            minHeadroom?.let { put("minHeadroom", it) }
        }
    }
}

/** Whether this viewer re-seeds what it watches (spec 3 uploadPolicy). */
enum class UploadPolicy(val wire: String) { RESEED("reseed"), CLIENT_ONLY("client-only") }

/**
 * start() options (spec 3 "Native mobile SDK": start(context, StartOptions)): the `start`
 * command's engine options, plus [dataDir], the worklet's own directory (`--data`; the adapter
 * defaults it to the app's files dir). Hybrid mode is not offered: this engine does not build it.
 */
data class StartOptions(
    /** The panel public key, 64 hex characters. */
    val panelPubKey: String,
    val prewarm: Prewarm? = null,
    val tune: TuneOptions? = null,
    val zapPrefetch: ZapPrefetchOption? = null,
    val swarm: SwarmOptions? = null,
    val uploadPolicy: UploadPolicy? = null,
    val debug: Boolean? = null,
    val dataDir: String? = null,
    /** A PEM file the engine's https fetches (the programme guide) trust instead of the built-in roots (`--ca`). */
    val caFile: String? = null,
)
