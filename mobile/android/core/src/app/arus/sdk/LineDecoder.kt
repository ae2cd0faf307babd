package app.arus.sdk

import java.io.ByteArrayOutputStream
import org.json.JSONObject

/** Why a line was dropped (never its content: a line may carry a password). */
data class DroppedLine(val reason: Reason, val bytes: Long) {
    enum class Reason(val wire: String) { TOO_LONG("too-long"), NOT_JSON("not-json"), NOT_AN_OBJECT("not-an-object") }
}

/**
 * Splits a byte stream into JSON objects, one per line (`@arus/engine-protocol`'s LineDecoder).
 * A line over [maxBytes] (newline excluded) is skipped up to its newline without being kept in
 * memory; a line that is not a JSON object is skipped; each drop goes to [onDrop] and decoding
 * carries on. Empty lines are ignored. Not thread-safe: one reader pushes.
 */
class LineDecoder(
    private val onValue: (JSONObject) -> Unit,
    private val onDrop: (DroppedLine) -> Unit,
    private val maxBytes: Int = EngineProtocol.MAX_LINE_BYTES,
) {
    private val line = ByteArrayOutputStream()
    private var size = 0L
    private var skipping = false

    fun push(chunk: ByteArray, offset: Int = 0, length: Int = chunk.size - offset) {
        var from = offset
        val end = offset + length
        while (from < end) {
            var nl = from
            while (nl < end && chunk[nl] != NEWLINE) nl++
            keep(chunk, from, nl - from)
            if (nl == end) return
            finishLine()
            from = nl + 1
        }
    }

    /** A text chunk (tests, in-memory transports): its UTF-8 bytes. */
    fun push(text: String) {
        val bytes = text.toByteArray(Charsets.UTF_8)
        push(bytes, 0, bytes.size)
    }

    private fun keep(bytes: ByteArray, from: Int, count: Int) {
        if (count == 0) return
        if (!skipping && size + count > maxBytes) {
            skipping = true
            line.reset()
        }
        size += count
        if (!skipping) line.write(bytes, from, count)
    }

    private fun finishLine() {
        val bytes = size
        val skipped = skipping
        size = 0L
        skipping = false
        if (skipped) { onDrop(DroppedLine(DroppedLine.Reason.TOO_LONG, bytes)); return }
        if (bytes == 0L) return
        val text = line.toString(Charsets.UTF_8.name()).removePrefix("\uFEFF") // TextDecoder drops a BOM too
        line.reset()
        val value = try {
            StrictJson.parse(text)
        } catch (e: StrictJson.SyntaxError) {
            onDrop(DroppedLine(DroppedLine.Reason.NOT_JSON, bytes))
            return
        }
        if (value !is JSONObject) { onDrop(DroppedLine(DroppedLine.Reason.NOT_AN_OBJECT, bytes)); return }
        onValue(value)
    }

    private companion object {
        const val NEWLINE: Byte = 10
    }
}
