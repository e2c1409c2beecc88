# Cut down from pallets/flask src/flask/ctx.py (BSD-3-Clause licence).
from contextvars import ContextVar

_cv_request: ContextVar[object] = ContextVar("flask.request_ctx")


def after_this_request(f):
    ctx = _cv_request.get(None)
    if ctx is None:
        raise RuntimeError("'after_this_request' can only be used when a request context is active")
    ctx._after_request_functions.append(f)
    return f


def has_request_context() -> bool:
    return _cv_request.get(None) is not None
