"""Date formats that differ from Django's own for a language (FORMAT_MODULE_PATH)."""
