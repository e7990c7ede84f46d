"""Helpers shared by the tests and by tools/capture_goldens.py."""
