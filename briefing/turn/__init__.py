"""The road of a client turn."""
