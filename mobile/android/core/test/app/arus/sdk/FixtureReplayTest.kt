package app.arus.sdk

import java.io.File
import org.json.JSONArray
import org.json.JSONObject
import org.junit.Assert.assertEquals
import org.junit.Assert.assertTrue
import org.junit.Test

/**
 * The transcript fixtures recorded from the real engine (packages/sdk/ipc-fixtures, docs/engine-ipc.md
 * "Transcript fixtures") replayed through [ArusBackend]: the same command lines go out for the
 * same method calls, and the same state comes in. With -Darus.tsExpectations=<file> (written by
 * test/mobile/android.test.ts from `@arus/engine-protocol`), every received message's parse and
 * the state after it are compared with the TypeScript binding's, message by message, and so are
 * the extra lines in that file (decoder drops, invalid and unknown messages).
 */
class FixtureReplayTest {
    private val files = fixturesDir().listFiles { f -> f.name.endsWith(".json") }!!.sortedBy { it.name }
    private val ts: JSONObject? = System.getProperty("arus.tsExpectations")?.let { readJson(File(it)) }

    @Test
    fun `there are fixtures to replay`() {
        assertTrue("fixtures in ${fixturesDir()}", files.size >= 4)
        assertTrue("the protocol 2 fixture", files.any { it.name == "services.json" })
    }

    @Test
    fun `every fixture - the same commands go out and the same state comes in`() {
        var compared = 0
        for (file in files) {
            val fixture = readJson(file)
            assertEquals(EngineProtocol.VERSION, fixture.getInt("protocol"))
            val sessions = fixture.getJSONArray("sessions")
            val tsSessions = ts?.getJSONObject("fixtures")?.getJSONObject(file.name)?.getJSONArray("sessions")
            for (s in 0 until sessions.length()) {
                compared += replay("${file.name}#$s", sessions.getJSONObject(s), tsSessions?.getJSONObject(s)?.getJSONArray("steps"))
            }
        }
        if (ts != null) println("ts-compared: ${files.size} fixtures, $compared received messages")
    }

    /** Replays one session; returns how many received messages were compared with TypeScript. */
    private fun replay(where: String, session: JSONObject, tsSteps: JSONArray?): Int {
        val m = MemoryBackend()
        val steps = session.getJSONArray("steps")
        val recordedStart = (0 until steps.length()).map { steps.getJSONObject(it) }
            .firstOrNull { it.optJSONObject("send")?.optString("cmd") == "start" }?.getJSONObject("send")
        m.started(startOptionsOf(recordedStart ?: JSONObject().put("panelPubKey", "a".repeat(64))))
        if (recordedStart != null) assertEquals("$where start", plain(withoutId(recordedStart)), plain(JSONObject(m.engine.written[0])))
        var compared = 0
        for (i in 0 until steps.length()) {
            val step = steps.getJSONObject(i)
            val expected = tsSteps?.getJSONObject(i)
            when {
                step.has("receive") -> {
                    val before = m.messages.size
                    m.engine.emit(step.getJSONObject("receive").toString() + "\n")
                    if (expected != null) {
                        val e = expected.getJSONObject("receive")
                        assertEquals("$where step $i delivered", e.getBoolean("delivered"), m.messages.size > before)
                        if (m.messages.size > before) assertEquals("$where step $i parsed", plain(e.get("parsed")), plain(m.messages.last().toJson()))
                        assertEquals("$where step $i state", plain(e.get("state")), plain(m.backend.snapshot().toJson()))
                        compared++
                    }
                }
                step.has("send") -> {
                    val command = step.getJSONObject("send")
                    if (command.optString("cmd") == "start") continue
                    val before = m.engine.written.size
                    val sent = callFor(m.backend, command)
                    // Only what a host can send through its methods: TypeScript's EngineCommand schema agrees.
                    expected?.let { assertEquals("$where step $i sendable", it.getJSONObject("send").getBoolean("valid"), sent) }
                    if (!sent) continue
                    assertEquals("$where step $i: one line", before + 1, m.engine.written.size)
                    assertEquals("$where step $i", plain(withoutId(command)), plain(JSONObject(m.engine.written[before])))
                }
            }
        }
        assertEquals("$where final state", plain(session.getJSONObject("state")), plain(m.backend.snapshot().toJson()))
        assertTrue("$where: no warnings ${m.warnings}", m.warnings.isEmpty())
        return compared
    }

    @Test
    fun `extra lines - drops, invalid and unknown messages, reduced as TypeScript does`() {
        val lines = ts?.optJSONArray("lines") ?: return // only with the TypeScript expectations
        var state = HostState.INITIAL
        for (i in 0 until lines.length()) {
            val e = lines.getJSONObject(i)
            var outcome = ""
            var parsed: EngineMessage? = null
            val decoder = LineDecoder({ value ->
                outcome = try {
                    MessageParser.parse(value).let { if (it is EngineMessage.Unknown) "unknown" else { parsed = it; "message" } }
                } catch (_: InvalidMessage) {
                    "invalid"
                }
            }, { drop -> outcome = "dropped:${drop.reason.wire}" })
            decoder.push(e.getString("line") + "\n")
            parsed?.let { state = applyEngineMessage(state, it) }
            val line = e.getString("line").take(80)
            assertEquals("line $i $line", e.getString("outcome"), outcome)
            if (parsed != null) assertEquals("line $i parsed", plain(e.get("parsed")), plain(parsed!!.toJson()))
            assertEquals("line $i state", plain(e.get("state")), plain(state.toJson()))
        }
        println("ts-compared: ${lines.length()} extra lines")
    }
}

/** StartOptions holding exactly the fields of a recorded `start` command. */
fun startOptionsOf(c: JSONObject): StartOptions {
    fun long(o: JSONObject, k: String) = if (o.has(k)) o.getLong(k) else null
    val known = setOf("cmd", "v", "id", "panelPubKey", "prewarm", "tune", "zapPrefetch", "swarm", "uploadPolicy", "debug")
    c.keys().forEach { require(it in known) { "start field $it has no option" } }
    return StartOptions(
        panelPubKey = c.getString("panelPubKey"),
        prewarm = c.opt("prewarm")?.let { if (it is Boolean) Prewarm.Enabled(it) else Prewarm.Count((it as Number).toInt()) },
        tune = c.optJSONObject("tune")?.let { TuneOptions(long(it, "timeoutMs"), long(it, "relookupMinMs"), long(it, "relookupMaxMs"), long(it, "rescanMs")) },
        zapPrefetch = c.opt("zapPrefetch")?.let { if (it is Boolean) ZapPrefetchOption.Enabled(it) else zapOf(it as JSONObject) },
        swarm = c.optJSONObject("swarm")?.let { s ->
            SwarmOptions(
                maxPeers = if (s.has("maxPeers")) s.getInt("maxPeers") else null,
                bootstrap = s.optJSONArray("bootstrap")?.let { a -> (0 until a.length()).map { HostPort(a.getJSONObject(it).getString("host"), a.getJSONObject(it).getInt("port")) } },
            )
        },
        uploadPolicy = c.optString("uploadPolicy", null)?.let { p -> UploadPolicy.values().first { it.wire == p } },
        debug = if (c.has("debug")) c.getBoolean("debug") else null,
    )
}

private fun zapOf(o: JSONObject) = ZapPrefetchOption.Tuned(
    neighbors = if (o.has("neighbors")) o.getInt("neighbors") else null,
    intervalMs = if (o.has("intervalMs")) o.getLong("intervalMs") else null,
    directional = if (o.has("directional")) o.getBoolean("directional") else null,
    stallMs = if (o.has("stallMs")) o.getLong("stallMs") else null,
    resumeMs = if (o.has("resumeMs")) o.getLong("resumeMs") else null,
    minHeadroom = if (o.has("minHeadroom")) o.getDouble("minHeadroom") else null,
)

/**
 * Calls the backend method that sends [c] (its `id` aside); false when no method can: an
 * unknown command, or fields a method does not take (the bad-lines fixture sends both).
 */
fun callFor(b: ArusBackend, c: JSONObject): Boolean {
    val fields = c.keys().asSequence().toSet() - setOf("cmd", "id")
    fun takes(vararg names: String, optional: Set<String> = emptySet()) = fields.containsAll(names.toList()) && (fields - names.toSet() - optional).isEmpty()
    when (c.optString("cmd")) {
        "login" -> if (takes("username", "password")) b.login(c.getString("username"), c.getString("password")) else return false
        "play" -> if (takes("streamId")) b.play(c.getString("streamId")) else return false
        "playRaw" -> if (takes("feedKey", "encKey")) b.playRaw(c.getString("feedKey"), c.getString("encKey")) else return false
        "reconnect" -> if (takes()) b.reconnect() else return false
        "setZapPrefetch" -> if (takes("value")) {
            val v = c.get("value")
            b.setZapPrefetch(if (v is Boolean) ZapPrefetchOption.Enabled(v) else zapOf(v as JSONObject))
        } else return false
        "setNetworkProfile" -> if (takes("expensive", optional = setOf("cellular"))) {
            b.setNetworkProfile(c.getBoolean("expensive"), if (c.has("cellular")) c.getBoolean("cellular") else null)
        } else return false
        "requestPrefs" -> if (takes()) b.requestPrefs() else return false
        "saveCredentials" -> if (takes("username", "password")) b.saveCredentials(c.getString("username"), c.getString("password")) else return false
        "clearCredentials" -> if (takes()) b.clearCredentials() else return false
        "toggleFavorite" -> if (takes("streamId")) b.toggleFavorite(c.getString("streamId")) else return false
        "stop" -> if (takes()) b.stop() else return false
        "report" -> {
            val category = ReportCategory.values().firstOrNull { it.wire == c.optString("category") }
            if (category == null || !takes("channel", "category", optional = setOf("text", "appVersion", "platform"))) return false
            b.report(ReportInput(
                channel = c.getString("channel"),
                category = category,
                text = if (c.isNull("text")) null else c.optString("text"),
                appVersion = if (c.has("appVersion")) c.getString("appVersion") else null,
                platform = if (c.has("platform")) c.getString("platform") else null,
                textGiven = c.has("text"),
            ))
        }
        "epg" -> if (takes("epgUrl", "epgId")) b.epg(c.getString("epgUrl"), c.getString("epgId")) else return false
        "vodProvider" -> if (takes()) b.vodProvider() else return false
        "setUploadPolicy" -> {
            val policy = UploadPolicy.values().firstOrNull { it.wire == c.optString("policy") }
            if (policy == null || !takes("policy")) return false
            b.setUploadPolicy(policy)
        }
        "prewarm" -> if (takes(optional = setOf("count"))) b.prewarm(if (c.has("count")) c.getInt("count") else null) else return false
        "sessionLive" -> if (takes()) b.sessionLive() else return false
        else -> return false
    }
    return true
}
