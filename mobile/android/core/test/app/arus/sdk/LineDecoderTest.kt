package app.arus.sdk

import org.json.JSONObject
import org.junit.Assert.assertEquals
import org.junit.Assert.assertTrue
import org.junit.Test

class LineDecoderTest {
    private val values = mutableListOf<JSONObject>()
    private val drops = mutableListOf<DroppedLine>()
    private fun decoder(max: Int = EngineProtocol.MAX_LINE_BYTES) = LineDecoder({ values.add(it) }, { drops.add(it) }, max)

    @Test
    fun `lines split across chunks and several lines in one chunk`() {
        val d = decoder()
        d.push("{\"type\":\"po")
        d.push("rt\",\"v\":1,\"port\":4}\n{\"a\":1}\n\n{\"b\"")
        assertEquals(2, values.size)
        d.push(":[1,2]}\n")
        assertEquals(listOf("port", null, null), values.map { it.optString("type", null) })
        assertEquals(listOf(1.0, 2.0), plain(values[2].get("b")))
        assertTrue(drops.isEmpty())
    }

    @Test
    fun `a multi-byte character split between chunks decodes whole`() {
        val d = decoder()
        val bytes = "{\"title\":\"Berita \u00e9\u6f22\uD83D\uDE00\"}\n".toByteArray(Charsets.UTF_8)
        for (i in bytes.indices) d.push(bytes, i, 1) // one byte at a time
        assertEquals("Berita \u00e9\u6f22\uD83D\uDE00", values.single().getString("title"))
    }

    @Test
    fun `not json, not an object and too long are dropped with their reason and size, decoding carries on`() {
        val d = decoder(max = 64)
        d.push("this is not json\n")
        d.push("[1,2,3]\n")
        d.push("\"text\"\n")
        d.push("{'single':'quotes'}\n") // org.json would take it; JSON.parse does not
        d.push("{\"a\":1} trailing\n")
        d.push("{\"pad\":\"" + "x".repeat(100))
        d.push("x".repeat(100) + "\"}\n")
        d.push("{\"ok\":true}\n")
        assertEquals(
            listOf("not-json" to 16L, "not-an-object" to 7L, "not-an-object" to 6L, "not-json" to 19L, "not-json" to 16L, "too-long" to 210L),
            drops.map { it.reason.wire to it.bytes },
        )
        assertEquals(true, values.single().getBoolean("ok"))
    }

    @Test
    fun `a line exactly at the cap is kept, one byte more is dropped`() {
        val d = decoder(max = 20)
        val atCap = "{\"p\":\"" + "x".repeat(12) + "\"}" // 20 bytes
        assertEquals(20, atCap.length)
        d.push(atCap + "\n")
        d.push("{\"p\":\"" + "x".repeat(13) + "\"}\n")
        assertEquals(1, values.size)
        assertEquals(listOf(DroppedLine(DroppedLine.Reason.TOO_LONG, 21)), drops)
    }

    @Test
    fun `strict JSON grammar, as JSON parse`() {
        val d = decoder()
        val good = listOf(
            "{\"n\":-0.5e+3,\"i\":12,\"big\":9007199254740993,\"s\":\"\\u00e9\\n\\\"\\/\",\"t\":true,\"f\":false,\"z\":null,\"e\":{},\"a\":[]}",
            " \t{ \"dup\" : 1 , \"dup\" : 2 }\r",
        )
        val bad = listOf("{\"a\":01}", "{\"a\":1.}", "{\"a\":.5}", "{\"a\":+1}", "{\"a\":[1,]}", "{\"a\":1,}", "{a:1}", "{\"a\":\"tab\there\"}", "{\"a\":tru}", "{\"a\":\"\\x\"}", "{\"a\":NaN}", "{\"a\":1e999}")
        for (line in good + bad) d.push(line + "\n")
        assertEquals(bad.size, drops.count { it.reason == DroppedLine.Reason.NOT_JSON })
        assertEquals(-500.0, values[0].getDouble("n"), 0.0)
        assertEquals("\u00e9\n\"/", values[0].getString("s"))
        assertTrue(values[0].isNull("z"))
        assertEquals(2, values[1].getInt("dup")) // the last repeated key wins
    }

    @Test
    fun `nesting deeper than the cap is dropped instead of overflowing the stack`() {
        val d = decoder()
        d.push("{\"a\":" + "[".repeat(100_000) + "]".repeat(100_000) + "}\n")
        d.push("{\"ok\":1}\n")
        assertEquals(DroppedLine.Reason.NOT_JSON, drops.single().reason)
        assertEquals(1, values.size)
    }
}
