package app.arus.sdk

import org.json.JSONObject
import org.junit.Assert.assertEquals
import org.junit.Assert.assertFalse
import org.junit.Assert.assertNull
import org.junit.Assert.assertTrue
import org.junit.Assert.fail
import org.junit.Test

class ArusBackendTest {
    private fun json(s: String) = plain(JSONObject(s))

    @Test
    fun `start launches the engine once with --data and sends start with the protocol version and the options`() {
        val m = MemoryBackend()
        val options = StartOptions(
            panelPubKey = "b".repeat(64),
            prewarm = Prewarm.Count(2),
            tune = TuneOptions(timeoutMs = 30_000, rescanMs = 0),
            zapPrefetch = ZapPrefetchOption.Tuned(neighbors = 2, directional = false),
            swarm = SwarmOptions(maxPeers = 100, bootstrap = listOf(HostPort("127.0.0.1", 49737))),
            uploadPolicy = UploadPolicy.CLIENT_ONLY,
            debug = true,
            dataDir = "/data/arus",
        )
        m.backend.start(null, options)
        m.backend.start(null, options)
        assertEquals(1, m.engine.launches)
        assertEquals(listOf("--data", "/data/arus"), m.engine.launchArgs)
        assertEquals(
            json("""{"cmd":"start","v":2,"panelPubKey":"${"b".repeat(64)}","prewarm":2,"tune":{"timeoutMs":30000,"rescanMs":0},"zapPrefetch":{"neighbors":2,"directional":false},"swarm":{"maxPeers":100,"bootstrap":[{"host":"127.0.0.1","port":49737}]},"uploadPolicy":"client-only","debug":true}"""),
            plain(JSONObject(m.engine.written.single())),
        )
        assertTrue(m.engine.written.single().endsWith("}\n"))
    }

    @Test
    fun `each method sends its one command line`() {
        val m = MemoryBackend().started()
        val b = m.backend
        val calls = listOf<Pair<() -> Unit, String>>(
            { b.login("alice", "pw") } to """{"cmd":"login","username":"alice","password":"pw"}""",
            { b.play("news") } to """{"cmd":"play","streamId":"news"}""",
            { b.playRaw("c".repeat(64), "d".repeat(64)) } to """{"cmd":"playRaw","feedKey":"${"c".repeat(64)}","encKey":"${"d".repeat(64)}"}""",
            { b.reconnect() } to """{"cmd":"reconnect"}""",
            { b.setZapPrefetch(true) } to """{"cmd":"setZapPrefetch","value":true}""",
            { b.setZapPrefetch(ZapPrefetchOption.Tuned(intervalMs = 4000)) } to """{"cmd":"setZapPrefetch","value":{"intervalMs":4000}}""",
            { b.setNetworkProfile(true) } to """{"cmd":"setNetworkProfile","expensive":true}""",
            { b.setNetworkProfile(false, cellular = true) } to """{"cmd":"setNetworkProfile","expensive":false,"cellular":true}""",
            { b.requestPrefs() } to """{"cmd":"requestPrefs"}""",
            { b.saveCredentials("alice", "pw") } to """{"cmd":"saveCredentials","username":"alice","password":"pw"}""",
            { b.clearCredentials() } to """{"cmd":"clearCredentials"}""",
            { b.toggleFavorite("news") } to """{"cmd":"toggleFavorite","streamId":"news"}""",
            { b.report(ReportInput("news", ReportCategory.BLACK_SCREEN)) } to """{"cmd":"report","channel":"news","category":"black-screen"}""",
            { b.report(ReportInput("news", ReportCategory.OTHER, "odd", appVersion = "2.0", platform = "tv")) } to
                """{"cmd":"report","channel":"news","category":"other","text":"odd","appVersion":"2.0","platform":"tv"}""",
            { b.epg("https://guide.example/epg.json", "news.tv") } to """{"cmd":"epg","epgUrl":"https://guide.example/epg.json","epgId":"news.tv"}""",
            { b.vodProvider() } to """{"cmd":"vodProvider"}""",
            { b.setUploadPolicy(UploadPolicy.CLIENT_ONLY) } to """{"cmd":"setUploadPolicy","policy":"client-only"}""",
            { b.prewarm() } to """{"cmd":"prewarm"}""",
            { b.prewarm(3) } to """{"cmd":"prewarm","count":3}""",
            { b.sessionLive() } to """{"cmd":"sessionLive"}""",
            { b.stop() } to """{"cmd":"stop"}""",
        )
        for ((call, expected) in calls) {
            val before = m.engine.written.size
            call()
            assertEquals(expected, before + 1, m.engine.written.size)
            assertEquals(expected, json(expected), plain(m.engine.lastCommand()))
        }
        assertTrue(m.engine.closed)
        b.play("after-stop")
        assertEquals(calls.size + 1, m.engine.written.size) // nothing goes out after stop
    }

    @Test
    fun `a start the engine refuses leaves it able to take a corrected start, on the same engine`() {
        val m = MemoryBackend()
        m.backend.start(null, StartOptions("a".repeat(64), tune = TuneOptions(timeoutMs = -1), dataDir = "/data/arus", caFile = "/data/ca.pem"))
        m.engine.emit("""{"type":"error","code":"SDK_INVALID_OPTIONS","message":"invalid createPlayer options: tune.timeoutMs","cmd":"start"}""" + "\n")
        m.backend.start(null, StartOptions("a".repeat(64), tune = TuneOptions(timeoutMs = 30_000), dataDir = "/elsewhere"))
        assertEquals(1, m.engine.launches)
        assertEquals(listOf("--data", "/data/arus", "--ca", "/data/ca.pem"), m.engine.launchArgs)
        assertEquals(2, m.engine.written.size)
        assertEquals(json("""{"cmd":"start","v":2,"panelPubKey":"${"a".repeat(64)}","tune":{"timeoutMs":30000}}"""), plain(m.engine.lastCommand()))
        // Accepted this time: start() is idempotent again.
        m.engine.emit("""{"type":"port","v":2,"port":4000}""" + "\n")
        m.backend.start(null, StartOptions("a".repeat(64)))
        assertEquals(2, m.engine.written.size)
        assertEquals(4000, m.backend.port)
    }

    @Test
    fun `protocol 2 messages are delivered parsed`() {
        val m = MemoryBackend().started()
        m.engine.emit("""{"type":"report","channel":"news","category":"buffering","status":"cooldown","retryAfter":598,"id":"r"}""" + "\n")
        m.engine.emit("""{"type":"epg","epgUrl":"https://g/e.json","epgId":"n","now":{"title":"A","start":"s","stop":"e","extra":1},"next":[],"loaded":true}""" + "\n")
        m.engine.emit("""{"type":"vod-provider","provider":{"enabled":true,"apiBase":"https://v/api","service":"acme","sources":{"movies":"m1"},"params":{"lang":"en"}}}""" + "\n")
        m.engine.emit("""{"type":"upload-policy","policy":"client-only","rejoined":1}""" + "\n")
        m.engine.emit("""{"type":"prewarm","warmed":2}""" + "\n")
        m.engine.emit("""{"type":"session-live","live":false}""" + "\n")
        m.engine.emit("""{"type":"recovered","message":"store purged","code":"SDK_STORE_CORRUPT"}""" + "\n")
        assertEquals(
            listOf(
                EngineMessage.Report("news", ReportCategory.BUFFERING, ReportStatus.COOLDOWN, 598.0, "r"),
                EngineMessage.Epg("https://g/e.json", "n", EpgEntry("A", "s", "e"), emptyList(), true),
                EngineMessage.VodProviderSettings(VodProvider(true, "https://v/api", "acme", "m1", null, mapOf("lang" to "en"))),
                EngineMessage.UploadPolicyChanged(UploadPolicy.CLIENT_ONLY, 1),
                EngineMessage.Prewarmed(2),
                EngineMessage.SessionLive(false),
                EngineMessage.Recovered("store purged", "SDK_STORE_CORRUPT"),
            ),
            m.messages,
        )
        m.engine.emit("""{"type":"report","channel":"news","category":"too-loud","status":"sent"}""" + "\n")
        assertEquals(7, m.messages.size)
        assertEquals(HostErrorCodes.INVALID_MESSAGE, m.warnings.single().code)
    }

    @Test
    fun `cached state follows the engine - the playing channel is the confirmed one`() {
        val m = MemoryBackend().started()
        m.engine.emit("""{"type":"port","v":1,"port":4000}""" + "\n")
        m.engine.emit("""{"type":"streams","streams":[{"id":"news","title":"News","type":"live"},{"id":"vod.film","title":"Film","type":"vod"}]}""" + "\n")
        m.backend.play("news")
        assertNull(m.backend.activeStreamId) // asked, not yet confirmed
        m.engine.emit("""{"type":"status","state":"playing","streamId":"news","url":"http://127.0.0.1:4000/index.m3u8","source":"p2p","mediaType":"live","feedKey":"k1"}""" + "\n")
        m.engine.emit("""{"type":"feed-changed","streamId":"other","feedKey":"x","url":"y"}""" + "\n")
        assertEquals(listOf("k1", "http://127.0.0.1:4000/index.m3u8"), listOf(m.backend.feedKey, m.backend.url)) // not the playing one
        m.engine.emit("""{"type":"feed-changed","streamId":"news","feedKey":"k2","url":"http://127.0.0.1:4000/index.m3u8"}""" + "\n")
        m.engine.emit("""{"type":"prefs","creds":{"username":"alice","password":"pw"},"favorites":["news"]}""" + "\n")
        val b = m.backend
        assertEquals(listOf(4000, "news", "http://127.0.0.1:4000/index.m3u8", StreamSource.P2P, MediaType.LIVE, "k2"), listOf(b.port, b.activeStreamId, b.url, b.source, b.mediaType, b.feedKey))
        assertEquals(listOf("news", "vod.film"), b.streams.map { it.id })
        assertEquals(Credentials("alice", "pw"), b.creds)
        assertTrue(b.isFavorite("news"))
        assertFalse(b.isFavorite("vod.film"))
        assertEquals(listOf("port", "streams", "status", "feed-changed", "feed-changed", "prefs"), m.messages.map { it.type })
    }

    @Test
    fun `bad lines are dropped with a warning, never their content, a throwing listener does not stop the others`() {
        val m = MemoryBackend()
        val got = mutableListOf<String>()
        m.backend.onMessage { throw IllegalStateException("host bug") }
        m.backend.onMessage { throw AssertionError("host assertion") }
        m.backend.onMessage { got.add(it.type) }
        m.started()
        m.engine.emit("not json at all\n")
        m.engine.emit("{\"type\":\"port\",\"v\":1}\n") // a known type with a missing field
        m.engine.emit("{\"type\":\"from-the-future\",\"x\":1}\n") // unknown: ignored silently
        val big = JSONObject().put("type", "prefs").put("creds", JSONObject().put("username", "u").put("password", "planted-secret"))
            .put("favorites", org.json.JSONArray(listOf("x".repeat(EngineProtocol.MAX_LINE_BYTES)))).toString()
        var i = 0
        while (i < big.length) { m.engine.emit(big.substring(i, minOf(big.length, i + (1 shl 20)))); i += 1 shl 20 }
        m.engine.emit("\n{\"type\":\"port\",\"v\":1,\"port\":4242}\n")
        assertEquals(4242, m.backend.port)
        assertNull(m.backend.creds)
        assertEquals(listOf("port"), got)
        assertEquals(
            listOf(HostErrorCodes.BAD_LINE, HostErrorCodes.INVALID_MESSAGE, HostErrorCodes.BAD_LINE, HostErrorCodes.LISTENER_FAILED, HostErrorCodes.LISTENER_FAILED),
            m.warnings.map { it.code },
        )
        assertTrue(m.warnings[0].message.contains("not-json"))
        assertTrue(m.warnings[2].message.contains("too-long"))
        assertFalse(m.warnings.joinToString().contains("planted-secret"))
        assertFalse(m.warnings.joinToString().contains("host bug")) // the exception's class, not its message
    }

    @Test
    fun `a listener can unsubscribe, a command over the line cap is not sent`() {
        val m = MemoryBackend().started()
        val got = mutableListOf<String>()
        val sub = m.backend.onMessage { got.add(it.type) }
        m.engine.emit("{\"type\":\"fallback\"}\n")
        sub.cancel()
        sub.cancel()
        m.engine.emit("{\"type\":\"source-changed\"}\n")
        assertEquals(listOf("fallback"), got)
        val lines = m.engine.written.size
        m.backend.login("alice", "planted-secret" + "x".repeat(EngineProtocol.MAX_LINE_BYTES))
        assertEquals(lines, m.engine.written.size)
        assertEquals(HostErrorCodes.COMMAND_TOO_LONG, m.warnings.single().code)
        assertFalse(m.warnings.single().message.contains("planted-secret"))
    }

    @Test
    fun `the engine ending by itself is reported, ending after stop is not`() {
        val a = MemoryBackend().started()
        a.engine.end(1)
        assertEquals(HostErrorCodes.ENGINE_EXITED, a.warnings.single().code)
        a.backend.play("news")
        assertEquals(1, a.engine.written.size) // only start: the transport is gone
        val b = MemoryBackend().started()
        b.backend.stop()
        b.engine.end(0)
        assertTrue(b.warnings.isEmpty())
    }

    @Test
    fun `an engine class that cannot be loaded fails start with a code`() {
        val b = ArusBackend(BackendInit(ANDROID_14, EngineRef.Named("app.arus.sdk.NoSuchEngine")))
        try {
            b.start(null, StartOptions("a".repeat(64)))
            fail("start should have failed")
        } catch (e: ArusException) {
            assertEquals(HostErrorCodes.ENGINE_START_FAILED, e.code)
        }
    }

    @Test
    fun `an unsupported device makes the whole backend inert`() {
        for (device in listOf(DeviceInfo(28, true), DeviceInfo(21, true), DeviceInfo(34, false))) {
            val m = MemoryBackend(device)
            assertTrue(m.backend.isInert)
            val got = mutableListOf<EngineMessage>()
            m.backend.onMessage { got.add(it) }.cancel()
            m.backend.start(null, StartOptions("a".repeat(64)))
            m.backend.login("u", "p")
            m.backend.play("news")
            m.backend.stop()
            assertEquals(0, m.engine.launches)
            assertTrue(got.isEmpty() && m.messages.isEmpty() && m.warnings.isEmpty())
            assertEquals(HostState.INITIAL, m.backend.snapshot())
        }
        assertFalse(MemoryBackend(DeviceInfo(29, true)).backend.isInert)
    }
}
