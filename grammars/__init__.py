"""The bundled format specs (YAML) and the JSON Schema they obey."""
