"""Upkeep of briefings after the conversation."""
