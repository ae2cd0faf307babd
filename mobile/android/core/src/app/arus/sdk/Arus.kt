package app.arus.sdk

/** The device as [Arus.isSupported] judges it (the adapter reads it from android.os.Build). */
data class DeviceInfo(val apiLevel: Int, val is64Bit: Boolean)

/**
 * Platform floors (spec 3 "Versioning" 1). Deliberately free of any reference to the engine
 * class: calling [isSupported] on an old device loads nothing of the engine.
 */
object Arus {
    /** The native SDK's minimum: it loads and stays inert down to this API level. */
    const val MIN_SDK_API_LEVEL: Int = 21

    /** The engine's minimum (with a 64-bit OS); below it the engine class is never touched. */
    const val MIN_ENGINE_API_LEVEL: Int = 29

    /** True when the engine can run: API level 29 or later on a 64-bit OS. */
    @JvmStatic
    fun isSupported(apiLevel: Int, is64Bit: Boolean): Boolean = is64Bit && apiLevel >= MIN_ENGINE_API_LEVEL

    @JvmStatic
    fun isSupported(device: DeviceInfo): Boolean = isSupported(device.apiLevel, device.is64Bit)
}
