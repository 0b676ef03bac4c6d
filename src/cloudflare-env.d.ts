// Tells the Workers types what this Worker's main module and bindings are, so
// `exports` and `env` from "cloudflare:workers" are typed in tests.
type SlipwayBindings = import("./env.ts").Bindings;
declare namespace Cloudflare {
  interface GlobalProps {
    mainModule: typeof import("./index.ts");
  }
  // An interface may only extend a named type, so the import goes through an alias.
  interface Env extends SlipwayBindings {}
}
