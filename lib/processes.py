"""Run one function on several local processes joined by ``torch.distributed``, and never hang.

Used by: chapters/scale.md (the sharded table on four processes) and :mod:`lib.distributed`.

Follows ``torch.multiprocessing.spawn`` and the rendezvous of ``torch.distributed.init_process_group``:
:func:`spawn` starts ``world_size`` processes, each initialises a process group (gloo on CPU, NCCL on
GPUs) through a file in a fresh temporary folder, so that no port is needed, and calls the function with
its rank. Where it departs: it returns every rank's result to the caller, and it supervises the ranks:
if one raises, dies or hangs, the others are stopped and the caller gets a :class:`RankError` carrying
the failing rank's own traceback (or a ``TimeoutError`` naming the ranks that did not finish), where
``torch.multiprocessing.spawn`` would leave the other ranks blocked in a collective. The sharding itself
is :mod:`lib.distributed`.
"""

from __future__ import annotations

import datetime
import multiprocessing
import os
import queue
import shutil
import sys
import tempfile
import time
import traceback
from typing import Any, Callable, Dict, List, Optional

import torch
import torch.distributed as dist
import torch.multiprocessing as mp

from lib import validate

__all__ = ["RankError", "spawn"]


class RankError(RuntimeError):
    """A rank raised: ``rank`` is its number, ``remote_traceback`` its formatted traceback."""

    def __init__(self, rank: int, remote_traceback: str, others: Optional[Dict[int, str]] = None):
        self.rank, self.remote_traceback, self.others = rank, remote_traceback, others or {}
        lines = remote_traceback.strip().splitlines() or ["(no traceback)"]
        msg = f"rank {rank} failed: {lines[-1]}"
        if len(lines) > 1:
            msg += f"\n\n--- traceback of rank {rank} ---\n{remote_traceback}"
        if self.others:
            msg += "\n(also failed, probably because rank %d did: %s)" % (
                rank,
                "; ".join(f"rank {r}: {t.strip().splitlines()[-1]}" for r, t in sorted(self.others.items())),
            )
        super().__init__(msg)


def _worker(rank, world_size, init_file, backend, collective_timeout, threads, fn, args, kwargs, results):
    try:
        torch.set_num_threads(threads)
        if backend == "nccl":  # one GPU per rank
            torch.cuda.set_device(rank % torch.cuda.device_count())
        dist.init_process_group(
            backend,
            init_method=f"file://{init_file}",
            rank=rank,
            world_size=world_size,
            timeout=datetime.timedelta(seconds=collective_timeout),
        )
        out = fn(rank, world_size, *args, **kwargs)
        results.put(("ok", rank, out))
    except BaseException:  # noqa: BLE001 - every failure must reach the parent
        results.put(("error", rank, traceback.format_exc()))
    finally:
        results.close()
        results.join_thread()  # the message is in the pipe before this rank's sockets close
        if dist.is_initialized():
            dist.destroy_process_group()


_PEER_LOSS = ("Connection closed by peer", "Connection reset by peer", "transport/tcp")


def _is_peer_loss(tb: str) -> bool:
    """True when a rank's error only says that another rank went away (gloo's transport errors)."""
    return any(marker in tb for marker in _PEER_LOSS)


# forkserver: the first call starts a server process that imports torch once; later calls fork ranks
# from it in a fraction of a second. Where forkserver does not exist (Windows), every rank is spawned.
_START_METHOD = "forkserver" if "forkserver" in multiprocessing.get_all_start_methods() else "spawn"


def spawn(
    fn: Callable,
    world_size: int,
    *args: Any,
    timeout: float = 120.0,
    collective_timeout: Optional[float] = None,
    backend: str = "gloo",
    threads_per_rank: int = 1,
    **kwargs: Any,
) -> List[Any]:
    """Run ``fn(rank, world_size, *args, **kwargs)`` on ``world_size`` new processes; return their results.

    Each process initialises ``torch.distributed`` (``backend``, default gloo; rendezvous through a file
    in a fresh temporary directory, so no port is needed) before calling ``fn``; ``fn`` must be a
    module-level function (the processes are started with the ``spawn`` method and import it) and its
    result picklable. Returns ``[result of rank 0, result of rank 1, ...]``.

    Never hangs: if any rank raises, the others are terminated and a :class:`RankError` carrying that
    rank's traceback is raised (errors other ranks reported within a second are attached, and a rank
    whose error only says that a peer went away is not taken for the cause); if a process dies
    without reporting, ``RankError`` names its exit code; if not every rank has finished after
    ``timeout`` seconds (start-up included), all are terminated and ``TimeoutError`` names the missing
    ranks. ``collective_timeout`` (default: ``timeout``) bounds each collective inside the ranks.
    ``threads_per_rank`` sets ``torch.set_num_threads`` in each rank. Raises ``ValueError`` for a bad
    ``world_size``, timeout or thread count (each count in ``[1, lib.validate.MAX_WORKERS]``), and
    ``TypeError`` when ``fn`` cannot be imported by the ranks (a lambda, a nested function, a function defined
    in ``__main__`` or a notebook).
    """
    world_size = validate.workers(world_size, "world_size", hint="processes")
    if not callable(fn):
        raise TypeError(f"fn must be a function, got {fn!r}")
    where = getattr(fn, "__module__", None)
    if where in (None, "__main__") or "<" in getattr(fn, "__qualname__", "<"):
        raise TypeError(
            f"fn must be a module-level function of an importable module (the ranks import it), got {fn!r} "
            f"from {where!r}: a lambda, a nested function or one defined in a notebook cannot be imported"
        )
    timeout = validate.number(timeout, "timeout", gt=0, hint="seconds")
    collective_timeout = (
        timeout if collective_timeout is None else validate.number(collective_timeout, "collective_timeout", gt=0, hint="seconds")
    )
    threads_per_rank = validate.workers(threads_per_rank, "threads_per_rank")
    ctx = mp.get_context(_START_METHOD)
    if _START_METHOD == "forkserver":
        # the server imports torch and fn's module once; not the module this process was started from with
        # `python -m`: each rank runs that one itself as __mp_main__ (multiprocessing's fix-up of __main__), and
        # runpy warns when the module is already imported (a RuntimeWarning per rank)
        started_as = getattr(getattr(sys.modules.get("__main__"), "__spec__", None), "name", None)
        ctx.set_forkserver_preload(["torch"] if where == started_as else ["torch", where])
    results = ctx.Queue()
    tmp = tempfile.mkdtemp(prefix="embook-dist-")
    procs = [
        ctx.Process(
            target=_worker,
            args=(
                r,
                world_size,
                os.path.join(tmp, "rendezvous"),
                backend,
                collective_timeout,
                threads_per_rank,
                fn,
                args,
                kwargs,
                results,
            ),
            daemon=True,
        )
        for r in range(world_size)
    ]
    out: Dict[int, Any] = {}
    errors: Dict[int, str] = {}
    started: List[Any] = []
    try:
        for p in procs:
            p.start()
            started.append(p)
        deadline = time.monotonic() + timeout
        while len(out) < world_size and not errors:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                missing = [r for r in range(world_size) if r not in out]
                raise TimeoutError(
                    f"ranks {missing} of {world_size} did not finish within {timeout:g} s; all ranks were terminated"
                )
            try:
                kind, rank, payload = results.get(timeout=min(remaining, 0.2))
            except queue.Empty:
                dead = [r for r, p in enumerate(procs) if r not in out and p.exitcode is not None]
                if dead:
                    try:  # a rank that exited normally may have a message still in the pipe
                        kind, rank, payload = results.get(timeout=1.0)
                    except queue.Empty:
                        r = dead[0]
                        errors[r] = f"exited with code {procs[r].exitcode} without reporting a result (see its stderr)"
                        break
                else:
                    continue
            if kind == "ok":
                out[rank] = payload
            else:
                errors[rank] = payload
        if errors:
            grace = time.monotonic() + 1.0  # collect what the other ranks say, briefly
            while time.monotonic() < grace:
                try:
                    kind, rank, payload = results.get(timeout=0.1)
                except queue.Empty:
                    continue
                if kind == "error":
                    errors.setdefault(rank, payload)
            for r, p in enumerate(procs):  # ranks that died without a word (os._exit, a crash, a kill)
                if r not in out and r not in errors and p.exitcode not in (None, 0):
                    errors[r] = f"exited with code {p.exitcode} without reporting a result (see its stderr)"
            # The root cause is the first error that is not a rank losing its connection to a peer.
            causes = [r for r in errors if not _is_peer_loss(errors[r])] or list(errors)
            first = causes[0]
            others = {r: t for r, t in errors.items() if r != first}
            raise RankError(first, errors[first], others)
        return [out[r] for r in range(world_size)]
    finally:
        for p in started:
            if p.is_alive():
                p.terminate()
        for p in started:
            p.join(timeout=5)
            if p.is_alive():  # pragma: no cover - terminate() was ignored
                p.kill()
                p.join(timeout=5)
        results.close()
        shutil.rmtree(tmp, ignore_errors=True)
