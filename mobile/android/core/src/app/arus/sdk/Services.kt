package app.arus.sdk

/** Problem report categories (spec 1 "Problem report"). */
enum class ReportCategory(val wire: String) {
    NO_AUDIO("no-audio"), BLACK_SCREEN("black-screen"), VISUAL_ARTIFACTS("visual-artifacts"), BUFFERING("buffering"),
    WRONG_CONTENT("wrong-content"), LOGIN("login"), OTHER("other"),
}

/**
 * What the panel made of a report: taken ([SENT], [COLLAPSED] into an open one), [UNSUPPORTED]
 * (the panel takes no reports: say so), or already reported ([COOLDOWN], [LOCKED]: retryAfter).
 */
enum class ReportStatus(val wire: String) { SENT("sent"), COLLAPSED("collapsed"), UNSUPPORTED("unsupported"), COOLDOWN("cooldown"), LOCKED("locked") }

/**
 * A problem report for `report` (protocol 2). [text]: at most 300 characters are sent; shipped
 * apps send none. [textGiven] says whether `text` goes on the line at all (null is sent as null).
 */
data class ReportInput(
    val channel: String,
    val category: ReportCategory,
    val text: String? = null,
    val appVersion: String? = null,
    val platform: String? = null,
    val textGiven: Boolean = text != null,
)

/** One programme of the guide (ISO times). */
data class EpgEntry(val title: String, val start: String, val stop: String)

/** The operator's external VOD provider settings (spec 1 svcmeta/vod). */
data class VodProvider(
    val enabled: Boolean,
    val apiBase: String,
    val service: String,
    val movies: String?,
    val series: String?,
    val params: Map<String, String>,
)
