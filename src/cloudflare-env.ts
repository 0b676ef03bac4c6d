// Tells the Workers types what this Worker's main module and bindings are, so
// `exports` and `env` from "cloudflare:workers" are typed (in tests too).
import type { Bindings } from "./env.ts";

declare global {
  namespace Cloudflare {
    interface GlobalProps {
      mainModule: typeof import("./index.ts");
    }
    interface Env extends Bindings {}
  }
}
