"""What ``parsergen build`` can write: Python modules, and Rust reasoning parsers (a
leaf module, so that the command line names them without importing the compiler)."""

TARGETS = ("python", "rust")
