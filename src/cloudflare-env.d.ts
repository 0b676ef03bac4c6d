// Tells the Workers types what this Worker's main module and bindings are, so
// `exports` and `env` from "cloudflare:workers" are typed in tests.
declare namespace Cloudflare {
  interface GlobalProps {
    mainModule: typeof import("./index.ts");
  }
  interface Env extends import("./env.ts").Bindings {}
}
