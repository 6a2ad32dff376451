"""Process-wide settings that a small model's training step needs to be fast and steady.

The model is small: a step is a few hundred small matmuls and elementwise passes over arrays
of about 1 MB. Two defaults of the process cost more than the arithmetic:

- glibc's malloc returns freed memory at the top of the heap (and every block above its mmap
  threshold) to the OS, so each step page-faults its activations in again: thousands of faults
  a step. `keep_freed_memory` raises the trim and mmap thresholds so freed memory is reused;
  the process then stays at its high-water mark (tens of MB for training).
- OpenBLAS splits even these small matmuls over threads; on a busy machine (other runs, other
  programs) a thread that waits for a descheduled sibling turns a 0.3 ms matmul into 10 ms.
  `single_threaded_blas` sets numpy's OpenBLAS to one thread, which is also what makes a run's
  numbers the same whatever the core count. They are the same bytes on one machine, not on
  every machine: OpenBLAS picks its kernels by CPU kind, and other kernels round otherwise.

`Trainer` calls `tune_process()` once. Both are best effort: elsewhere than glibc, and
without a BLAS that threadpoolctl knows, they do nothing. Nothing else in the engine has
process-wide effects.
"""

from __future__ import annotations

import ctypes
import functools

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
