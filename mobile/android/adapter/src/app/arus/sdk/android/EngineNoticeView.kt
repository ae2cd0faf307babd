package app.arus.sdk.android

import android.content.Context
import android.graphics.Color
import android.graphics.drawable.GradientDrawable
import android.view.Gravity
import android.widget.Button
import android.widget.LinearLayout
import android.widget.TextView
import app.arus.sdk.EngineNotice

// NOT COMPILED OR TESTED HERE: this adapter needs the Android SDK (see mobile/android/README.md).

/** Renders an [EngineNotice] (the unsupported-device screen): title, message, focusable action. */
class EngineNoticeView(context: Context, notice: EngineNotice) : LinearLayout(context) {
    init {
        orientation = VERTICAL
        gravity = Gravity.CENTER
        val pad = dp(32)
        setPadding(pad, pad, pad, pad)
        setBackgroundColor(notice.background)
        addView(TextView(context).apply {
            text = notice.title
            textSize = 22f
            setTextColor(Color.WHITE)
            gravity = Gravity.CENTER
        })
        notice.message?.let { m ->
            addView(TextView(context).apply {
                text = m
                textSize = 16f
                setTextColor(0xFFD0D0D8.toInt())
                gravity = Gravity.CENTER
            })
        }
        notice.onAction?.let { action ->
            val button = Button(context).apply {
                text = notice.actionText
                setTextColor(Color.WHITE)
                background = GradientDrawable().apply { setColor(notice.accent); cornerRadius = dp(8).toFloat() }
                isFocusable = notice.focusable
                setOnClickListener { action() }
            }
            addView(button)
            if (notice.focusable) button.post { button.requestFocus() } // TV remotes land on it
        }
    }

    private fun dp(v: Int): Int = (v * resources.displayMetrics.density).toInt()
}
