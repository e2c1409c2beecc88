# After pallets/flask tests/test_reqctx.py (BSD-3-Clause licence), cut down.
import importlib

import flask
from flask import has_request_context


def test_no_context():
    assert not has_request_context()
    assert not flask.has_request_context()


def test_dynamic():
    module = importlib.import_module("flask.ctx")
    assert not module.has_request_context()
