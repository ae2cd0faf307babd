package app.arus.sdk

import org.junit.Assert.assertEquals
import org.junit.Assert.assertFalse
import org.junit.Assert.assertTrue
import org.junit.Test

class EngineNoticeTest {
    @Test
    fun `defaults are the React Native notice's - colors, the Continue label, no action without a handler, focusable`() {
        val n = EngineNotice(title = "Not on this device", message = "Watch in the browser instead.")
        assertEquals(EngineNotice.color("#101014"), n.background)
        assertEquals(EngineNotice.color("#3d7cff"), n.accent)
        assertEquals(0xFF101014.toInt(), n.background)
        assertFalse(n.hasAction)
        assertEquals("Continue", n.actionText)
        assertTrue(n.focusable)
    }

    @Test
    fun `a branded notice with an action`() {
        var pressed = 0
        val n = EngineNotice("T", background = EngineNotice.color("#000000"), accent = EngineNotice.color("#ff5500"), actionLabel = "Open the web player", onAction = { pressed++ })
        assertTrue(n.hasAction)
        assertEquals("Open the web player", n.actionText)
        n.onAction!!()
        assertEquals(1, pressed)
        assertEquals(0xFFFF5500.toInt(), n.accent)
        assertEquals(0x80FF5500.toInt(), EngineNotice.color("#80ff5500"))
    }
}
