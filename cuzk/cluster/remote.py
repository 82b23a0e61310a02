"""Talking to node actors and to the Ray head: every call bounded, every failure one line."""

from __future__ import annotations

import signal
import socket
import threading

from .errors import ClusterError


def gather(ray, actors: list, method: str, arg, timeout: float) -> list:
    """Call a node method on several nodes at once; engine errors come back as themselves."""
    refs = [getattr(a, method).remote(arg) for a in actors]
    try:
        return ray.get(refs, timeout=timeout)
    except ray.exceptions.GetTimeoutError:
        raise ClusterError(f"{method}({arg}) got no answer from the nodes within {timeout:.0f} s") from None
    except ray.exceptions.RayActorError as exc:
        raise ClusterError(f"{method}({arg}): a node was lost: {first_line(exc)}") from None
    except Exception as exc:
        raise cause(exc) from None


def ask_all(ray, actors: list, method: str, timeout: float) -> list:
    """One call per actor (None: not asked), all at once; each answer or its exception."""
    refs = [getattr(a, method).remote() if a is not None else None for a in actors]
    live = [r for r in refs if r is not None]
    if live:
        ray.wait(live, num_returns=len(live), timeout=timeout)
    out = []
    for r in refs:
        if r is None:
            out.append(ClusterError("starting"))
            continue
        try:
            out.append(ray.get(r, timeout=0.1))
        except Exception as exc:
            out.append(exc)
    return out


def cause(exc: BaseException) -> BaseException:
    """The exception a node raised, without Ray's wrapper and remote traceback."""
    cause = getattr(exc, "cause", None)
    return cause if isinstance(cause, BaseException) else exc


def first_line(exc: BaseException) -> str:
    text = str(exc).strip()
    return text.splitlines()[0] if text else type(exc).__name__


def signal_handlers() -> dict:
    if threading.current_thread() is not threading.main_thread():
        return {}
    return {sig: signal.getsignal(sig) for sig in (signal.SIGTERM, signal.SIGINT)}


def restore(handlers: dict) -> None:
    for sig, handler in handlers.items():
        if handler is not None:
            signal.signal(sig, handler)


def probe(address: str, timeout: float) -> None:
    """Fail in one line, at once, where Ray itself would retry for minutes."""
    host, _, port = address.rpartition(":")
    if not host or not port.isdigit():
        raise ClusterError(f"--ray-address {address!r}: expected HOST:PORT of the Ray head (e.g. 10.0.0.1:6379)")
    try:
        socket.create_connection((host, int(port)), timeout=timeout).close()
    except OSError as exc:
        raise ClusterError(f"cannot reach the Ray head at {address}: {exc.strerror or exc}") from None
