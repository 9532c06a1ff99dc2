"""The results table and its exports."""
