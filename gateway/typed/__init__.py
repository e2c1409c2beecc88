"""Typed edits: declared kinds of change, grants bound to file hashes, and the audit log."""
