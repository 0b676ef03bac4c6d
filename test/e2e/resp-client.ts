import { connect, type Socket } from "node:net";
import { spawn, type ChildProcess } from "node:child_process";
import { freePort } from "../../local/free-port.ts";

/** A Redis reply: errors are values here, so a comparison can see them. */
export type RespValue = string | number | null | RespValue[] | RespError;
export class RespError {
  readonly message: string;
  constructor(message: string) {
    this.message = message;
  }
}

/** A minimal RESP2 client: one connection, commands answered in order. */
export class RespClient {
  private buffer = Buffer.alloc(0);
  private waiting: ((value: RespValue) => void)[] = [];

  private readonly socket: Socket;

  private constructor(socket: Socket) {
    this.socket = socket;
    socket.on("data", (chunk) => {
      this.buffer = Buffer.concat([this.buffer, chunk]);
      for (;;) {
        const parsed = parse(this.buffer, 0);
        if (!parsed) break;
        this.buffer = this.buffer.subarray(parsed[1]);
        this.waiting.shift()!(parsed[0]);
      }
    });
  }

  static connect(port: number): Promise<RespClient> {
    return new Promise((resolve, reject) => {
      const socket = connect({ host: "127.0.0.1", port }, () => resolve(new RespClient(socket)));
      socket.once("error", reject);
    });
  }

  command(...args: (string | number)[]): Promise<RespValue> {
    const parts = args.map(String);
    let frame = `*${parts.length}\r\n`;
    for (const p of parts) frame += `$${Buffer.byteLength(p)}\r\n${p}\r\n`;
    return new Promise((resolve) => {
      this.waiting.push(resolve);
      this.socket.write(frame);
    });
  }

  close(): void {
    this.socket.end();
  }
}

/** Parses one reply at `at`; null when the buffer does not hold all of it yet. */
function parse(buf: Buffer, at: number): [RespValue, number] | null {
  const eol = buf.indexOf("\r\n", at);
  if (eol < 0) return null;
  const line = buf.toString("utf8", at + 1, eol);
  const next = eol + 2;
  switch (String.fromCharCode(buf[at]!)) {
    case "+":
      return [line, next];
    case "-":
      return [new RespError(line), next];
    case ":":
      return [Number(line), next];
    case "$": {
      const len = Number(line);
      if (len < 0) return [null, next];
      if (buf.length < next + len + 2) return null;
      return [buf.toString("utf8", next, next + len), next + len + 2];
    }
    case "*": {
      const count = Number(line);
      if (count < 0) return [null, next];
      const items: RespValue[] = [];
      let pos = next;
      for (let i = 0; i < count; i++) {
        const item = parse(buf, pos);
        if (!item) return null;
        items.push(item[0]);
        pos = item[1];
      }
      return [items, pos];
    }
    default:
      throw new Error(`unexpected RESP reply: ${line}`);
  }
}

/** Starts the Debian redis-server on a free loopback port, with no persistence. */
export async function startRedis(): Promise<{ port: number; process: ChildProcess; stop(): Promise<void> }> {
  const port = await freePort();
  const child = spawn("redis-server", ["--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"], { stdio: ["ignore", "pipe", "pipe"] });
  await new Promise<void>((resolve, reject) => {
    let output = "";
    child.once("error", (err) => reject(new Error(`could not start redis-server (apt-get install redis-server): ${err.message}`)));
    child.once("exit", (code) => reject(new Error(`redis-server exited with ${code}: ${output}`)));
    child.stdout!.on("data", (d) => {
      output += d;
      if (/Ready to accept connections/.test(output)) resolve();
    });
  });
  return {
    port,
    process: child,
    stop: () => new Promise((resolve) => {
      if (child.exitCode !== null) return resolve();
      child.once("exit", () => resolve());
      child.kill("SIGTERM");
    }),
  };
}
