"""Code every app shares that imports no Django (the mail parser uses it too)."""
