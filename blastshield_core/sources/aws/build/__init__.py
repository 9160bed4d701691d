"""Build: export files to one graph document (recognise, transform, load through the import path)."""
