// Argon2 (RFC 9106) driven from imported WebAssembly, so it runs inside workerd.
//
// The two binaries are hash-wasm's (MIT; see argon2-wasm-license.md), lifted out of its
// bundle by scripts/extract-argon2-wasm.ts: hash-wasm itself compiles them from base64 at
// run time, which workerd forbids. argon2.wasm fills and mixes the memory blocks
// (RFC 9106 §3.2 steps 5–7); everything around it — H0, the variable-length hash H', the
// first two blocks of each lane and the tag — is done here with blake2b.wasm.
import argon2Module from "./argon2.wasm";
import blake2bModule from "./argon2-blake2b.wasm";

export type Argon2Type = "argon2d" | "argon2i" | "argon2id";

export type Argon2Options = {
  password: Uint8Array;
  salt: Uint8Array;
  /** Optional key K (RFC 9106 §3.1). */
  secret?: Uint8Array;
  /** Optional associated data X. */
  associatedData?: Uint8Array;
  iterations: number;
  /** In KiB. */
  memorySize: number;
  parallelism: number;
  hashLength: number;
};

const VERSION = 0x13;
const TYPE_CODE: Record<Argon2Type, number> = { argon2d: 0, argon2i: 1, argon2id: 2 };
const BLOCK = 1024;

type Argon2Exports = {
  memory: WebAssembly.Memory;
  Hash_GetBuffer(): number;
  Hash_SetMemorySize(totalBytes: number): number;
  Hash_Calculate(length: number, memorySize: number): void;
};
type Blake2bExports = {
  memory: WebAssembly.Memory;
  Hash_GetBuffer(): number;
  Hash_Init(bits: number): void;
  Hash_Update(length: number): void;
  Hash_Final(): void;
};

/** BLAKE2b with an output length chosen per call, over blake2b.wasm's 16 KiB I/O buffer. */
class Blake2b {
  private readonly buffer: number;
  constructor(private readonly wasm: Blake2bExports) {
    this.buffer = wasm.Hash_GetBuffer();
  }

  hash(outLength: number, ...parts: Uint8Array[]): Uint8Array {
    this.wasm.Hash_Init(outLength * 8); // low 16 bits: output bits; high bits: key length (none)
    for (const part of parts) {
      for (let at = 0; at < part.length; at += 16 * 1024) {
        const chunk = part.subarray(at, at + 16 * 1024);
        new Uint8Array(this.wasm.memory.buffer, this.buffer, chunk.length).set(chunk);
        this.wasm.Hash_Update(chunk.length);
      }
    }
    this.wasm.Hash_Final();
    return new Uint8Array(this.wasm.memory.buffer, this.buffer, outLength).slice();
  }

  /** H' of RFC 9106 §3.3: BLAKE2b stretched to any output length. */
  long(outLength: number, ...parts: Uint8Array[]): Uint8Array {
    if (outLength <= 64) return this.hash(outLength, le32(outLength), ...parts);
    const out = new Uint8Array(outLength);
    const r = Math.ceil(outLength / 32) - 2;
    let v = this.hash(64, le32(outLength), ...parts);
    out.set(v.subarray(0, 32), 0);
    for (let i = 1; i < r; i++) {
      v = this.hash(64, v);
      out.set(v.subarray(0, 32), i * 32);
    }
    out.set(this.hash(outLength - 32 * r, v), r * 32);
    return out;
  }
}

type Engine = { argon2: Argon2Exports; blake2b: Blake2b; blake2bMemory: WebAssembly.Memory };

// One instance of each module per isolate, reused by every hash: the memory argon2.wasm
// grows for the first hash is reused, so it stays flat at the largest m seen.
let engine: Promise<Engine> | undefined;

function loadEngine(): Promise<Engine> {
  engine ??= (async () => {
    const [a, b] = await Promise.all([
      WebAssembly.instantiate(argon2Module),
      WebAssembly.instantiate(blake2bModule),
    ]);
    const blake2b = b.exports as unknown as Blake2bExports;
    return { argon2: a.exports as unknown as Argon2Exports, blake2b: new Blake2b(blake2b), blake2bMemory: blake2b.memory };
  })().catch((error: unknown) => {
    engine = undefined; // let the next call retry
    throw error;
  });
  return engine;
}

/**
 * Computes a raw Argon2 tag; throws RangeError for parameters outside ARGON2_LIMITS. The
 * computation is synchronous once the modules are loaded, so concurrent requests in one
 * isolate never interleave inside the shared WebAssembly memory.
 */
export async function argon2Raw(type: Argon2Type, options: Argon2Options): Promise<Uint8Array> {
  validateArgon2Options(options);
  const { argon2, blake2b } = await loadEngine();
  const { password, salt, iterations: t, memorySize: m, parallelism: p, hashLength } = options;
  const secret = options.secret ?? new Uint8Array();
  const data = options.associatedData ?? new Uint8Array();

  // §3.2 step 1: H0 = H^64(p, T, m, t, v, y, len(P), P, len(S), S, len(K), K, len(X), X).
  const params = le32(p, hashLength, m, t, VERSION, TYPE_CODE[type]);
  const h0 = blake2b.hash(64, params, le32(password.length), password, le32(salt.length), salt,
    le32(secret.length), secret, le32(data.length), data);

  // argon2.wasm keeps the m blocks from Hash_GetBuffer() on, then one block holding the
  // parameters it reads back. It never shrinks memory; grow it only when m is new.
  const base = argon2.Hash_GetBuffer();
  const needed = (m + 1) * BLOCK;
  if (argon2.memory.buffer.byteLength - base < needed && argon2.Hash_SetMemorySize(needed) !== 0) {
    throw new Error(`argon2: cannot grow WebAssembly memory to ${needed} bytes`);
  }
  const memory = new Uint8Array(argon2.memory.buffer, base, needed);
  // argon2.wasm XORs every new block into what is there (right for passes after the first,
  // RFC 9106 §3.2 step 6), so a reused memory must start zeroed for the first pass.
  memory.fill(0);

  // Step 3–4: the first two blocks of each lane. m is rounded down to 4p·⌊m/4p⌋ (m').
  const laneLength = 4 * Math.floor(m / (4 * p));
  for (let lane = 0; lane < p; lane++) {
    for (let j = 0; j < 2; j++) {
      memory.set(blake2b.long(BLOCK, h0, le32(j, lane)), (lane * laneLength + j) * BLOCK);
    }
  }
  memory.set(params, m * BLOCK);

  // Steps 5–7: fill the rest, t passes, and XOR the last column into block 0.
  argon2.Hash_Calculate(0, m);
  const final = new Uint8Array(argon2.memory.buffer, base, BLOCK);
  const tag = blake2b.long(hashLength, final);
  memory.fill(0); // don't leave password-derived blocks behind in the isolate
  return tag;
}

/** Bounds from RFC 9106 §3.1, plus a memory ceiling the Worker can afford. */
export const ARGON2_LIMITS = { maxMemoryKiB: 64 * 1024, minSaltBytes: 8, minHashBytes: 4, maxParallelism: 0xffffff };

export function validateArgon2Options(o: Argon2Options): void {
  const int = (n: number, min: number, max: number) => Number.isInteger(n) && n >= min && n <= max;
  if (!int(o.parallelism, 1, ARGON2_LIMITS.maxParallelism)) throw new RangeError("argon2: parallelism must be 1..2^24-1");
  if (!int(o.memorySize, 8 * o.parallelism, ARGON2_LIMITS.maxMemoryKiB)) {
    throw new RangeError(`argon2: memorySize must be 8·parallelism..${ARGON2_LIMITS.maxMemoryKiB} KiB`);
  }
  if (!int(o.iterations, 1, 0xffffffff)) throw new RangeError("argon2: iterations must be at least 1");
  if (!int(o.hashLength, ARGON2_LIMITS.minHashBytes, 0xffffffff)) throw new RangeError("argon2: hashLength must be at least 4");
  if (o.salt.length < ARGON2_LIMITS.minSaltBytes) throw new RangeError("argon2: salt must be at least 8 bytes");
}

/** Bytes of WebAssembly memory the Argon2 modules hold in this isolate (0 before first use). */
export async function argon2MemoryBytes(): Promise<number> {
  if (!engine) return 0;
  const { argon2, blake2bMemory } = await engine;
  return argon2.memory.buffer.byteLength + blake2bMemory.buffer.byteLength;
}

function le32(...values: number[]): Uint8Array {
  const out = new Uint8Array(4 * values.length);
  const view = new DataView(out.buffer);
  values.forEach((v, i) => view.setUint32(4 * i, v, true));
  return out;
}
