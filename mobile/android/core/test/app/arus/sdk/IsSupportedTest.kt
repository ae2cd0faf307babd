package app.arus.sdk

import java.net.URL
import java.net.URLClassLoader
import java.util.Collections
import java.util.function.IntFunction
import org.junit.Assert.assertEquals
import org.junit.Assert.assertFalse
import org.junit.Assert.assertTrue
import org.junit.Test

/** Counts what happened to [CountingEngine] inside one class loader. */
object EngineProbe {
    @JvmField var initialized = 0
    @JvmField var launches = 0
    val written: MutableList<String> = Collections.synchronizedList(mutableListOf())
}

/** Stands in for the adapter's Bare Kit engine class: its static initializer is where native code would load. */
class CountingEngine : EngineLauncher {
    companion object {
        init { EngineProbe.initialized++ }
    }

    override fun launch(context: Any?, args: List<String>, sink: EngineSink): EngineTransport {
        EngineProbe.launches++
        return object : EngineTransport {
            override fun write(bytes: ByteArray) { EngineProbe.written.add(String(bytes, Charsets.UTF_8).trim()) }
            override fun close() {}
        }
    }
}

/** What a host does on a device of the given API level (64-bit): check, build, start, use. */
class DeviceScenario : IntFunction<String> {
    override fun apply(apiLevel: Int): String {
        val supported = Arus.isSupported(apiLevel, true) && ArusBackend.isSupported(apiLevel, true)
        val backend = ArusBackend(BackendInit(DeviceInfo(apiLevel, true), EngineRef.Named("app.arus.sdk.CountingEngine")))
        var delivered = 0
        backend.onMessage { delivered++ }
        backend.start(null, StartOptions("a".repeat(64)))
        backend.login("u", "p")
        backend.play("news")
        backend.reconnect()
        backend.stop()
        return "supported=$supported inert=${backend.isInert} initialized=${EngineProbe.initialized} launches=${EngineProbe.launches} " +
            "written=${EngineProbe.written.map { it.substringAfter("\"cmd\":\"").substringBefore('"') }} delivered=$delivered"
    }
}

/**
 * Spec 3 "Native mobile SDK": below API level 29 the engine class is never touched. Each run
 * gets a fresh class loader that loads the SDK's classes itself (child first) and records every
 * one it loads, so "never touched" is checked as "never loaded", the engine's static
 * initializer included.
 */
class IsSupportedTest {
    private class RecordingLoader(urls: Array<URL>, parent: ClassLoader) : URLClassLoader(urls, parent) {
        val loaded: MutableList<String> = Collections.synchronizedList(mutableListOf())

        override fun loadClass(name: String, resolve: Boolean): Class<*> = synchronized(getClassLoadingLock(name)) {
            if (!name.startsWith("app.arus.")) return super.loadClass(name, resolve)
            val c = findLoadedClass(name) ?: findClass(name).also { loaded.add(name) }
            if (resolve) resolveClass(c)
            c
        }
    }

    private fun run(apiLevel: Int): Pair<String, List<String>> {
        val urls = listOf(ArusBackend::class.java, IsSupportedTest::class.java).map { it.protectionDomain.codeSource.location }.distinct()
        val loader = RecordingLoader(urls.toTypedArray(), IsSupportedTest::class.java.classLoader)
        loader.use {
            @Suppress("UNCHECKED_CAST")
            val scenario = it.loadClass(DeviceScenario::class.java.name).getDeclaredConstructor().newInstance() as IntFunction<String>
            return scenario.apply(apiLevel) to it.loaded.toList()
        }
    }

    @Test
    fun `the isSupported floors`() {
        assertFalse(Arus.isSupported(28, true))
        assertTrue(Arus.isSupported(29, true))
        assertFalse(Arus.isSupported(34, false))
        assertFalse(Arus.isSupported(Arus.MIN_SDK_API_LEVEL, true))
        assertEquals(listOf(21, 29), listOf(Arus.MIN_SDK_API_LEVEL, Arus.MIN_ENGINE_API_LEVEL))
    }

    @Test
    fun `at API 28 isSupported and the whole start path never load the engine class`() {
        val (result, loaded) = run(28)
        assertEquals("supported=false inert=true initialized=0 launches=0 written=[] delivered=0", result)
        assertTrue("the SDK ran in the recording loader: $loaded", loaded.containsAll(listOf("app.arus.sdk.Arus", "app.arus.sdk.ArusBackend", "app.arus.sdk.EngineRef\$Named")))
        assertFalse("loaded: $loaded", loaded.contains(CountingEngine::class.java.name))
    }

    @Test
    fun `at API 29 start loads, initializes and launches the engine class once`() {
        val (result, loaded) = run(29)
        assertEquals("supported=true inert=false initialized=1 launches=1 written=[start, login, play, reconnect, stop] delivered=0", result)
        assertTrue(loaded.contains(CountingEngine::class.java.name))
    }
}
