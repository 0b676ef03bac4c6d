// wrangler and the vitest plugin bundle a `.wasm` import as a compiled module (the only
// kind of WebAssembly workerd lets a Worker instantiate).
declare module "*.wasm" {
  const module: WebAssembly.Module;
  export default module;
}
