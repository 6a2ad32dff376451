"""The settings that a small model's training step needs to be fast and steady.

The model is small: a step is a few hundred small matmuls and elementwise passes over arrays
of about 1 MB. Two defaults of the process and one of each thread cost more than the
arithmetic:

- glibc's malloc returns freed memory at the top of the heap (and every block above its mmap
  threshold) to the OS, so each step page-faults its activations in again: thousands of faults
  a step. `keep_freed_memory` raises the trim and mmap thresholds so freed memory is reused;
  the process then stays at its high-water mark (tens of MB for training).
- OpenBLAS splits even these small matmuls over threads; on a busy machine (other runs, other
  programs) a thread that waits for a descheduled sibling turns a 0.3 ms matmul into 10 ms.
  `single_threaded_blas` sets numpy's OpenBLAS to one thread, which is also what makes a run's
  numbers the same whatever the core count. They are the same bytes on one machine, not on
  every machine: OpenBLAS picks its kernels by CPU kind, and other kernels round otherwise.
- A float32 below 1.2e-38 (subnormal) takes the CPU a slow path, up to a hundred times
  slower, in BLAS and in numpy's loops alike. A softmax that grows sure of itself writes them
  (exp of -90 is 8e-40), then every gradient downstream carries them: a run whose mask leaks
  trained 46% slower than the healthy run, a run without warmup 27%. `denormals_flushed()`
  sets the thread's flush-to-zero and denormals-are-zero modes (x86's MXCSR, Arm's FPCR FZ;
  what PyTorch's `set_flush_denormal` sets), the modes GPUs train in. A value that small,
  added to the step's others, vanishes in their rounding anyway: of the healthy run and the
  thirteen breaks, 400 steps on seeds 0, 1000 and 5000 (2026-12-03), 41 of the 42 runs wrote
  the same records with and without it; the 42nd (unscaled-attention, seed 1000) did too in a
  fresh process, but after 27 other runs in the same process its records without the flush
  differ from its own in a fresh one (the buffers' alignment reaches BLAS's rounding).
  The mode belongs to a thread, not the process: `Trainer.advance` (a step) sets it around
  its own work and restores the caller's, the engine's helper threads set it when they
  start, and work deferred to the caller's thread (`train.Deferred`) sets it as it runs.

`Trainer` calls `tune_process()` once for the first two. All three are best effort:
elsewhere than glibc (and, for the third, than x86-64 or AArch64), and without a BLAS that
threadpoolctl knows, they do nothing. Nothing else in the engine has process-wide or
thread-wide effects.
"""

from __future__ import annotations

import contextlib
import ctypes
import ctypes.util
import functools
import os
import platform
from collections.abc import Iterator

M_TRIM_THRESHOLD, M_MMAP_THRESHOLD = -1, -3  # glibc's mallopt parameters


def keep_freed_memory() -> bool:
    """Keep freed heap memory for reuse (glibc); whether it applied."""
    try:
        mallopt = ctypes.CDLL(None).mallopt
    except (OSError, AttributeError):
        return False
    return bool(mallopt(M_TRIM_THRESHOLD, 128 << 20)) and bool(mallopt(M_MMAP_THRESHOLD, 32 << 20))


def single_threaded_blas() -> bool:
    """Run numpy's BLAS on one thread (threadpoolctl knows every BLAS build); whether it applied."""
    import numpy  # noqa: F401  (loads the BLAS library so threadpoolctl can find it)
    from threadpoolctl import threadpool_limits

    return bool(threadpool_limits(limits=1, user_api="blas").get_original_num_threads())


@functools.cache
def tune_process() -> tuple[bool, bool]:
    """Apply both settings once; (malloc kept, BLAS single-threaded)."""
    return keep_freed_memory(), single_threaded_blas()


# Where glibc's fenv_t keeps the SSE or Arm control word (as 32-bit words), and its flush bits:
# x86-64: the x87 environment (28 bytes), then MXCSR; FTZ is bit 15, DAZ bit 6.
# AArch64: FPCR, then FPSR; FZ is bit 24 (it flushes inputs and results alike).
FLUSH_BITS = {"x86_64": (8, 7, (1 << 15) | (1 << 6)), "aarch64": (2, 0, 1 << 24)}


@functools.cache
def _fenv() -> tuple[ctypes.CDLL, int, int, int] | None:
    """(libm, fenv_t's words, the control word's index, its flush bits), or None elsewhere."""
    bits = FLUSH_BITS.get(platform.machine().lower())
    if bits is None or not _glibc():
        return None
    try:
        libm = ctypes.CDLL(ctypes.util.find_library("m") or "libm.so.6")
        libm.fegetenv, libm.fesetenv  # noqa: B018  (both exist, or this is not our libm)
    except (OSError, AttributeError):
        return None
    return (libm, *bits)


def _glibc() -> bool:
    try:
        return os.confstr("CS_GNU_LIBC_VERSION").startswith("glibc")
    except (AttributeError, ValueError, OSError):
        return False


def denormals_flushable() -> bool:
    """Whether this machine's threads can flush subnormals (glibc on x86-64 or AArch64)."""
    return _fenv() is not None


def flush_denormals() -> bool:
    """Flush subnormal floats to zero in this thread from now on; whether it applied."""
    return _set_flush() is not None


def _set_flush() -> ctypes.Array | None:
    """Turn this thread's flush bits on; the environment it replaced (`denormals_flushed`
    puts it back), or None where unknown."""
    fenv = _fenv()
    if fenv is None:
        return None
    libm, words, index, bits = fenv
    before, env = (ctypes.c_uint32 * words)(), (ctypes.c_uint32 * words)()
    if libm.fegetenv(before) != 0:
        return None
    ctypes.memmove(env, before, ctypes.sizeof(env))
    env[index] |= bits
    return before if libm.fesetenv(env) == 0 else None


@contextlib.contextmanager
def denormals_flushed() -> Iterator[None]:
    """Flush subnormal floats to zero in this thread's arithmetic inside the block; the
    thread's own mode (and its exception flags) come back after it."""
    before = _set_flush()
    try:
        yield
    finally:
        if before is not None:
            _fenv()[0].fesetenv(before)
