package app.arus.sdk

/**
 * The brandable screen for a device the engine cannot run on ([Arus.isSupported] false): a
 * title, a message, and an action the host wires to its own delivery (spec 3 EngineNotice). A
 * plain model with the React Native EngineNotice's defaults; the adapter's EngineNoticeView
 * renders it.
 */
data class EngineNotice(
    val title: String,
    val message: String? = null,
    /** ARGB colors. */
    val background: Int = DEFAULT_BACKGROUND,
    val accent: Int = DEFAULT_ACCENT,
    /** A focusable action (the host offers its own delivery); shown only with [onAction]. */
    val actionLabel: String? = null,
    val onAction: (() -> Unit)? = null,
    /** Give the action the initial focus on TV remotes. */
    val focusable: Boolean = true,
) {
    /** Whether the action button is shown. */
    val hasAction: Boolean get() = onAction != null

    /** The button's text: [actionLabel], or "Continue". */
    val actionText: String get() = actionLabel ?: DEFAULT_ACTION_LABEL

    companion object {
        /** #101014, the React Native EngineNotice's background. */
        const val DEFAULT_BACKGROUND: Int = 0xFF101014.toInt()

        /** #3d7cff, its accent (the action button). */
        const val DEFAULT_ACCENT: Int = 0xFF3D7CFF.toInt()
        const val DEFAULT_ACTION_LABEL: String = "Continue"

        /** ARGB from "#rrggbb" or "#aarrggbb" (the React Native colors prop's form). */
        @JvmStatic
        fun color(hex: String): Int {
            require(hex.startsWith("#") && (hex.length == 7 || hex.length == 9)) { "expected #rrggbb or #aarrggbb" }
            val v = hex.substring(1).toLong(16)
            return (if (hex.length == 7) v or 0xFF000000L else v).toInt()
        }
    }
}
