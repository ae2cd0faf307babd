// Web globals the engine and its dependencies expect, which Bare leaves to modules: installed
// before anything else of the bundle evaluates (main.ts imports this file first).
import 'bare-encoding/global'
import 'bare-crypto/global'
import 'bare-process/global'
import 'bare-abort-controller/global'
