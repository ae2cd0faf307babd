package app.arus.sdk

import org.json.JSONObject

/**
 * The commands a host sends (docs/engine-ipc.md "Commands"), built with exactly the fields the
 * React Native binding sends for the same call. No `id`: the engine echoes one when given, and
 * the backend's methods do not correlate replies (messages carry what they are about).
 */
object EngineCommand {
    private fun cmd(name: String): JSONObject = JSONObject().put("cmd", name)

    fun start(options: StartOptions): JSONObject = cmd("start").apply {
        put("v", EngineProtocol.VERSION)
        put("panelPubKey", options.panelPubKey)
        options.prewarm?.let { put("prewarm", it.wire()) }
        options.tune?.let { put("tune", it.toJson()) }
        options.zapPrefetch?.let { put("zapPrefetch", it.wire()) }
        options.swarm?.let { put("swarm", it.toJson()) }
        options.uploadPolicy?.let { put("uploadPolicy", it.wire) }
        options.debug?.let { put("debug", it) }
    }

    fun login(username: String, password: String): JSONObject = cmd("login").put("username", username).put("password", password)
    fun play(streamId: String): JSONObject = cmd("play").put("streamId", streamId)
    fun playRaw(feedKey: String, encKey: String): JSONObject = cmd("playRaw").put("feedKey", feedKey).put("encKey", encKey)
    fun reconnect(): JSONObject = cmd("reconnect")
    fun setZapPrefetch(value: ZapPrefetchOption): JSONObject = cmd("setZapPrefetch").put("value", value.wire())

    fun setNetworkProfile(expensive: Boolean, cellular: Boolean? = null): JSONObject =
        cmd("setNetworkProfile").put("expensive", expensive).apply { cellular?.let { put("cellular", it) } }

    fun requestPrefs(): JSONObject = cmd("requestPrefs")
    fun saveCredentials(username: String, password: String): JSONObject = cmd("saveCredentials").put("username", username).put("password", password)
    fun clearCredentials(): JSONObject = cmd("clearCredentials")
    fun toggleFavorite(streamId: String): JSONObject = cmd("toggleFavorite").put("streamId", streamId)
    fun stop(): JSONObject = cmd("stop")

    // Protocol 2.
    fun report(input: ReportInput): JSONObject = cmd("report").apply {
        put("channel", input.channel)
        put("category", input.category.wire)
        if (input.textGiven) put("text", input.text ?: JSONObject.NULL)
        input.appVersion?.let { put("appVersion", it) }
        input.platform?.let { put("platform", it) }
    }

    fun epg(epgUrl: String, epgId: String): JSONObject = cmd("epg").put("epgUrl", epgUrl).put("epgId", epgId)
    fun vodProvider(): JSONObject = cmd("vodProvider")
    fun setUploadPolicy(policy: UploadPolicy): JSONObject = cmd("setUploadPolicy").put("policy", policy.wire)
    fun prewarm(count: Int? = null): JSONObject = cmd("prewarm").apply { count?.let { put("count", it) } }
    fun sessionLive(): JSONObject = cmd("sessionLive")
}
