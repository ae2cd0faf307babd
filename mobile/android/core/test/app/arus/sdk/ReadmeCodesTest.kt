package app.arus.sdk

import java.io.File
import org.junit.Assert.assertEquals
import org.junit.Test

/** mobile/android/README.md "Error codes" lists exactly [HostErrorCodes.ALL], meanings included. */
class ReadmeCodesTest {
    @Test
    fun `the README's error table and the code table agree`() {
        val readme = File(repoRoot(), "mobile/android/README.md").readText()
        val section = readme.substringAfter("\n## Error codes\n").substringBefore("\n## ")
        val rows = Regex("""^\| `([A-Z_]+)` \| (.+) \|$""", RegexOption.MULTILINE).findAll(section)
            .associate { it.groupValues[1] to it.groupValues[2].trim() }
        assertEquals(HostErrorCodes.ALL, rows)
    }
}
