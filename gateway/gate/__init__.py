"""The structural gate: every write judged by its effect on the file's definitions."""
