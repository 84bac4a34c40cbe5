/**
 * The WASI imports of jq.wasm (wasm/jq): what the C library may ask of its host, answered
 * deterministically. SANDBOX-SAFE.
 *
 * - clock: `Date.now()` looked up at call time; inside a workflow that is the sandbox's Date,
 *   i.e. workflow time, so jq's `now` replays identically;
 * - random bytes: xorshift32 from a fixed seed, per instance (jq only seeds its hash function
 *   with them, which never shows in results);
 * - environment: empty (`$ENV`, `env`);
 * - files: none (no preopened directory: jq modules cannot be loaded); what jq writes to
 *   stderr (e.g. "cannot allocate memory" before it aborts) goes to `onStderr`.
 */
import { errorClass, SwflowError } from '../common/errors';

/** Thrown by `proc_exit` (jq never exits on purpose: only `exit()` after a fatal error would). */
export class WasiExit extends SwflowError {
  static {
    errorClass(this, 'WasiExit');
  }

  constructor(readonly code: number) {
    super(`jq exited with status ${code}`);
  }
}

declare const TextDecoder: new () => { decode(bytes: Uint8Array): string };

// WASI errno values.
const ESUCCESS = 0;
const EBADF = 8;
const ENOENT = 44;

/** The `wasi_snapshot_preview1` functions; `memory()` gives the instance's current buffer. */
export function wasiImports(memory: () => ArrayBuffer, onStderr: (text: string) => void): Record<string, (...args: never[]) => number> {
  const view = () => new DataView(memory());
  const decoder = new TextDecoder();
  let prng = 0x9e3779b9;
  return {
    environ_sizes_get: (count: number, size: number) => {
      view().setUint32(count, 0, true);
      view().setUint32(size, 0, true);
      return ESUCCESS;
    },
    environ_get: () => ESUCCESS,
    clock_time_get: (_id: number, _precision: bigint, out: number) => {
      view().setBigUint64(out, BigInt(Date.now()) * 1_000_000n, true);
      return ESUCCESS;
    },
    random_get: (ptr: number, len: number) => {
      const bytes = new Uint8Array(memory(), ptr, len);
      for (let i = 0; i < len; i++) {
        prng ^= prng << 13;
        prng ^= prng >>> 17;
        prng ^= prng << 5;
        bytes[i] = prng & 255;
      }
      return ESUCCESS;
    },
    fd_write: (fd: number, iovs: number, count: number, written: number) => {
      const v = view();
      let total = 0;
      for (let i = 0; i < count; i++) {
        const ptr = v.getUint32(iovs + i * 8, true);
        const len = v.getUint32(iovs + i * 8 + 4, true);
        if (fd === 2) onStderr(decoder.decode(new Uint8Array(memory(), ptr, len)));
        total += len;
      }
      v.setUint32(written, total, true);
      return ESUCCESS;
    },
    fd_fdstat_get: (fd: number, out: number) => {
      if (fd > 2) return EBADF;
      const v = view();
      v.setUint8(out, 2); // stdin/stdout/stderr: character devices
      v.setUint16(out + 2, 0, true);
      v.setBigUint64(out + 8, 0n, true);
      v.setBigUint64(out + 16, 0n, true);
      return ESUCCESS;
    },
    fd_prestat_get: () => EBADF, // no preopened directory: the C library sees no filesystem
    fd_prestat_dir_name: () => EBADF,
    fd_close: () => EBADF,
    fd_fdstat_set_flags: () => EBADF,
    fd_filestat_get: () => EBADF,
    fd_read: () => EBADF,
    fd_seek: () => EBADF,
    path_open: () => ENOENT,
    path_filestat_get: () => ENOENT,
    proc_exit: (code: number) => {
      throw new WasiExit(code);
    },
  };
}
