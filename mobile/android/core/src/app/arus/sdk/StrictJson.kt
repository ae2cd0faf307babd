package app.arus.sdk

import org.json.JSONArray
import org.json.JSONObject

/**
 * A strict RFC 8259 parser into org.json's value model (JSONObject, JSONArray, String, Boolean,
 * Int/Long/Double, JSONObject.NULL). org.json's own JSONTokener is lenient (unquoted words,
 * single quotes, comments), so a line the TypeScript decoder (JSON.parse) drops as not-json
 * would be taken for something else; this one accepts exactly what JSON.parse accepts, except
 * nesting deeper than [MAX_DEPTH] (the engine never nests more than a few levels) and numbers
 * beyond a double's range.
 */
internal class StrictJson private constructor(private val text: String) {
    class SyntaxError(message: String) : Exception(message)

    private var at = 0
    private var depth = 0

    companion object {
        const val MAX_DEPTH = 512

        /** Parses one JSON text; throws [SyntaxError] when it is not exactly one JSON value. */
        fun parse(text: String): Any {
            val p = StrictJson(text)
            p.space()
            val value = p.value()
            p.space()
            if (p.at != text.length) throw SyntaxError("trailing characters at ${p.at}")
            return value
        }
    }

    private fun fail(what: String): Nothing = throw SyntaxError("$what at $at")

    private fun space() {
        while (at < text.length) {
            when (text[at]) {
                ' ', '\t', '\n', '\r' -> at++
                else -> return
            }
        }
    }

    private fun value(): Any {
        if (at >= text.length) fail("unexpected end")
        return when (val c = text[at]) {
            '{' -> nested { obj() }
            '[' -> nested { array() }
            '"' -> string()
            't' -> literal("true", true)
            'f' -> literal("false", false)
            'n' -> literal("null", JSONObject.NULL)
            else -> if (c == '-' || c in '0'..'9') number() else fail("unexpected '$c'")
        }
    }

    private inline fun nested(parse: () -> Any): Any {
        if (++depth > MAX_DEPTH) fail("nesting deeper than $MAX_DEPTH")
        val v = parse()
        depth--
        return v
    }

    private fun literal(word: String, value: Any): Any {
        if (!text.startsWith(word, at)) fail("bad literal")
        at += word.length
        return value
    }

    private fun obj(): JSONObject {
        val o = JSONObject()
        at++ // {
        space()
        if (at < text.length && text[at] == '}') { at++; return o }
        while (true) {
            space()
            if (at >= text.length || text[at] != '"') fail("expected a key")
            val key = string()
            space()
            if (at >= text.length || text[at] != ':') fail("expected ':'")
            at++
            space()
            o.put(key, value()) // a repeated key keeps the last value, as JSON.parse does
            space()
            if (at >= text.length) fail("unexpected end")
            when (text[at++]) {
                ',' -> continue
                '}' -> return o
                else -> { at--; fail("expected ',' or '}'") }
            }
        }
    }

    private fun array(): JSONArray {
        val a = JSONArray()
        at++ // [
        space()
        if (at < text.length && text[at] == ']') { at++; return a }
        while (true) {
            space()
            a.put(value())
            space()
            if (at >= text.length) fail("unexpected end")
            when (text[at++]) {
                ',' -> continue
                ']' -> return a
                else -> { at--; fail("expected ',' or ']'") }
            }
        }
    }

    private fun string(): String {
        at++ // opening quote
        val out = StringBuilder()
        while (true) {
            if (at >= text.length) fail("unterminated string")
            val c = text[at++]
            when {
                c == '"' -> return out.toString()
                c == '\\' -> {
                    if (at >= text.length) fail("unterminated escape")
                    when (val e = text[at++]) {
                        '"', '\\', '/' -> out.append(e)
                        'b' -> out.append('\b')
                        'f' -> out.append('\u000C')
                        'n' -> out.append('\n')
                        'r' -> out.append('\r')
                        't' -> out.append('\t')
                        'u' -> {
                            if (at + 4 > text.length) fail("short \\u escape")
                            val hex = text.substring(at, at + 4)
                            if (!hex.all { it in '0'..'9' || it in 'a'..'f' || it in 'A'..'F' }) fail("bad \\u escape")
                            out.append(hex.toInt(16).toChar())
                            at += 4
                        }
                        else -> fail("bad escape")
                    }
                }
                c < ' ' -> fail("control character in string")
                else -> out.append(c)
            }
        }
    }

    private fun number(): Any {
        val start = at
        if (text[at] == '-') at++
        if (at >= text.length) fail("bad number")
        if (text[at] == '0') at++ else if (text[at] in '1'..'9') digits() else fail("bad number")
        var integral = true
        if (at < text.length && text[at] == '.') {
            integral = false
            at++
            if (at >= text.length || text[at] !in '0'..'9') fail("bad fraction")
            digits()
        }
        if (at < text.length && (text[at] == 'e' || text[at] == 'E')) {
            integral = false
            at++
            if (at < text.length && (text[at] == '+' || text[at] == '-')) at++
            if (at >= text.length || text[at] !in '0'..'9') fail("bad exponent")
            digits()
        }
        val literal = text.substring(start, at)
        if (integral) {
            literal.toIntOrNull()?.let { return it }
            literal.toLongOrNull()?.let { return it }
        }
        val d = literal.toDouble()
        if (d.isInfinite()) fail("number out of range") // JSON.parse gives Infinity; org.json cannot hold it
        return d
    }

    private fun digits() {
        while (at < text.length && text[at] in '0'..'9') at++
    }
}
