package app.arus.sdk.android

import android.os.Build
import android.os.Handler
import android.os.Looper
import android.os.SystemClock
import android.util.Log
import app.arus.sdk.ArusBackend
import app.arus.sdk.BackendInit
import app.arus.sdk.Cancellable
import app.arus.sdk.DeviceInfo
import app.arus.sdk.EngineRef
import app.arus.sdk.PlayerLoop
import app.arus.sdk.WarningSink

// NOT COMPILED OR TESTED HERE: this adapter needs the Android SDK (see mobile/android/README.md).

/** The Android entry points: the device, a backend on the Bare Kit worklet, the main-thread loop. */
object ArusAndroid {
    /** Named, never referenced: below API 29 the class (and Bare Kit's native code) is never loaded. */
    const val ENGINE_CLASS = "app.arus.sdk.android.BareKitEngine"

    /** This device for Arus.isSupported (API level, 64-bit ABI present). */
    @JvmStatic
    fun device(): DeviceInfo = DeviceInfo(Build.VERSION.SDK_INT, Build.SUPPORTED_64_BIT_ABIS.isNotEmpty())

    /** A backend for this device; call start(context, StartOptions) on it. Inert below API 29. */
    @JvmStatic
    @JvmOverloads
    fun backend(warn: WarningSink = WarningSink { Log.w("Arus", "[${it.code}] ${it.message}") }): ArusBackend =
        ArusBackend(BackendInit(device(), EngineRef.Named(ENGINE_CLASS), warn))
}

/** The player's loop on the main thread. */
class MainLoop : PlayerLoop {
    private val handler = Handler(Looper.getMainLooper())

    override fun now(): Long = SystemClock.uptimeMillis()

    override fun post(task: () -> Unit) {
        if (Looper.myLooper() == Looper.getMainLooper()) task() else handler.post(task)
    }

    override fun every(periodMs: Long, task: () -> Unit): Cancellable {
        val tick = object : Runnable {
            override fun run() {
                task()
                handler.postDelayed(this, periodMs)
            }
        }
        handler.postDelayed(tick, periodMs)
        return Cancellable { handler.removeCallbacks(tick) }
    }
}
