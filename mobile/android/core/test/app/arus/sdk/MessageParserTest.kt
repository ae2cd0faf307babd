package app.arus.sdk

import org.json.JSONObject
import org.junit.Assert.assertEquals
import org.junit.Assert.assertFalse
import org.junit.Assert.assertNull
import org.junit.Assert.assertTrue
import org.junit.Assert.fail
import org.junit.Test

class MessageParserTest {
    private fun parse(json: String): EngineMessage = MessageParser.parse(JSONObject(json))

    private fun invalid(json: String): String = try {
        parse(json)
        fail("expected $json to be invalid")
        ""
    } catch (e: InvalidMessage) {
        e.field
    }

    @Test
    fun `every known type parses into its class with its fields`() {
        assertEquals(EngineMessage.Port(1, 41303), parse("""{"type":"port","v":1,"port":41303}"""))
        val streams = parse("""{"type":"streams","streams":[{"id":"news","title":"News","type":"live","poster":"","x":{"y":1}}]}""") as EngineMessage.Streams
        assertEquals(listOf("news"), streams.streams.map { it.id })
        assertEquals(MediaType.LIVE, streams.streams[0].type)
        assertEquals(1, streams.streams[0].fields.getJSONObject("x").getInt("y")) // items keep every field
        assertEquals(
            EngineMessage.Status("playing", "news", "http://127.0.0.1:1/index.m3u8", StreamSource.P2P, MediaType.VOD, "ab", null),
            parse("""{"type":"status","state":"playing","streamId":"news","url":"http://127.0.0.1:1/index.m3u8","source":"p2p","mediaType":"vod","feedKey":"ab"}"""),
        )
        assertEquals(EngineMessage.Status("peers", "news", peers = 3), parse("""{"type":"status","state":"peers","streamId":"news","peers":3}"""))
        assertEquals(EngineMessage.Status("playing", null), parse("""{"type":"status","state":"playing","streamId":null,"feedKey":null}"""))
        assertEquals(
            EngineMessage.Error("SDK_NOT_ENTITLED", "not entitled to nope", "play", 4, "nope"),
            parse("""{"type":"error","code":"SDK_NOT_ENTITLED","message":"not entitled to nope","cmd":"play","id":4,"streamId":"nope"}"""),
        )
        assertEquals(
            EngineMessage.LoginError("SDK_LOGIN_LOCKED", "locked", true, 30.0, "a"),
            parse("""{"type":"login-error","code":"SDK_LOGIN_LOCKED","message":"locked","retryable":true,"retryAfter":30,"id":"a"}"""),
        )
        assertEquals(EngineMessage.FeedChanged("news", "k2", "u"), parse("""{"type":"feed-changed","streamId":"news","feedKey":"k2","url":"u"}"""))
        assertEquals(EngineMessage.ZapPrefetch(state = "suspended", reason = "metered"), parse("""{"type":"zap-prefetch","state":"suspended","reason":"metered"}"""))
        assertEquals(EngineMessage.Prefs(Credentials("alice", "pw"), listOf("news")), parse("""{"type":"prefs","creds":{"username":"alice","password":"pw"},"favorites":["news"]}"""))
        assertEquals(EngineMessage.Fallback, parse("""{"type":"fallback"}"""))
        assertEquals(EngineMessage.SourceChanged, parse("""{"type":"source-changed"}"""))
    }

    @Test
    fun `unknown types and unknown fields are tolerated`() {
        assertEquals(EngineMessage.Unknown("from-the-future"), parse("""{"type":"from-the-future","x":1}"""))
        assertEquals(EngineMessage.Unknown(""), parse("""{"kind":"port"}"""))
        assertEquals(EngineMessage.Unknown(""), parse("""{"type":7}"""))
        val port = parse("""{"type":"port","v":2,"port":1,"newField":true}""")
        assertEquals(EngineMessage.Port(2, 1), port)
        assertFalse(port.toJson().has("newField")) // the schema keeps only its fields
    }

    @Test
    fun `missing, mistyped, out-of-range and over-long fields make a known message invalid, naming the field`() {
        assertEquals("port", invalid("""{"type":"port","v":1}"""))
        assertEquals("port", invalid("""{"type":"port","v":1,"port":65536}"""))
        assertEquals("port", invalid("""{"type":"port","v":1,"port":1.5}"""))
        assertEquals("v", invalid("""{"type":"port","v":0,"port":1}"""))
        assertEquals("streams.0.type", invalid("""{"type":"streams","streams":[{"id":"a","title":"A","type":"radio"}]}"""))
        assertEquals("streams.1", invalid("""{"type":"streams","streams":[{"id":"a","title":"A","type":"vod"},"b"]}"""))
        assertEquals("streamId", invalid("""{"type":"status","state":"ready"}"""))
        assertEquals("state", invalid("""{"type":"status","state":"${"x".repeat(65)}","streamId":null}"""))
        assertEquals("url", invalid("""{"type":"status","state":"playing","streamId":"a","url":"${"u".repeat(2049)}"}"""))
        assertEquals("url", invalid("""{"type":"status","state":"playing","streamId":"a","url":null}"""))
        assertEquals("source", invalid("""{"type":"status","state":"playing","streamId":"a","source":"ftp"}"""))
        assertEquals("peers", invalid("""{"type":"status","state":"peers","streamId":"a","peers":-1}"""))
        assertEquals("id", invalid("""{"type":"error","code":"X","message":"m","id":null}"""))
        assertEquals("id", invalid("""{"type":"error","code":"X","message":"m","id":true}"""))
        assertEquals("code", invalid("""{"type":"error","code":"${"C".repeat(65)}","message":"m"}"""))
        assertEquals("retryable", invalid("""{"type":"login-error","code":"X","message":"m"}"""))
        assertEquals("state", invalid("""{"type":"zap-prefetch","state":"paused"}"""))
        assertEquals("favorites", invalid("""{"type":"prefs","creds":null}"""))
        assertEquals("creds", invalid("""{"type":"prefs","favorites":[]}"""))
        assertEquals("creds.password", invalid("""{"type":"prefs","creds":{"username":"u"},"favorites":[]}"""))
        assertEquals("favorites.1", invalid("""{"type":"prefs","creds":null,"favorites":["a",2]}"""))
    }

    @Test
    fun `integral numbers in any JSON spelling count as integers`() {
        assertEquals(EngineMessage.Port(1, 100), parse("""{"type":"port","v":1.0,"port":1e2}"""))
    }

    @Test
    fun `toJson leaves absent optionals out and never shows a password in toString`() {
        val status = parse("""{"type":"status","state":"ready","streamId":null}""").toJson()
        assertEquals(setOf("type", "state", "streamId"), status.keys().asSequence().toSet())
        assertTrue(status.isNull("streamId"))
        val prefs = parse("""{"type":"prefs","creds":{"username":"alice","password":"planted-secret"},"favorites":[]}""")
        assertFalse(prefs.toString().contains("planted-secret"))
        assertEquals("planted-secret", prefs.toJson().getJSONObject("creds").getString("password"))
        assertNull((parse("""{"type":"error","code":"X","message":"m","streamId":null}""") as EngineMessage.Error).streamId)
    }
}
