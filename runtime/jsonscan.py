"""JsonScan's old home: it lives in runtime/arguments/scanning.py with the other scanners.

runtime/streaming.py still imports it from here; once it imports from
``.arguments.scanning``, this module can go.
"""

from __future__ import annotations

from .arguments.scanning import JsonScan

__all__ = ["JsonScan"]
