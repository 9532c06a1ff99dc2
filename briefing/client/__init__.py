"""The client's chat page."""
