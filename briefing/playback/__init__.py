"""Conversations played from files through the real road."""
