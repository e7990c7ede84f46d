"""Helpers shared by the tests and by tools/capture_goldens.py."""


def with_types(value: object) -> object:
    """A JSON value with each scalar's type beside it, for comparisons that must not take
    1 for True or 3.0 for 3 (Python's == does)."""
    if isinstance(value, dict):
        return {key: with_types(item) for key, item in value.items()}
    if isinstance(value, list):
        return [with_types(item) for item in value]
    return (type(value).__name__, value)
