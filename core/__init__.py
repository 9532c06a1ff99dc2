"""Code every app shares. `core.input` imports no Django (the mail parser uses it too)."""
