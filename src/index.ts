import { app } from "./app.ts";
import type { Bindings } from "./env.ts";

export default {
  fetch: (request, env, ctx) => app.fetch(request, env, ctx),
} satisfies ExportedHandler<Bindings>;
